# Loaded by scripts/schemathesis.ts (SCHEMATHESIS_HOOKS): Schemathesis sends no body in
# a media type it has no serializer for. An ICC profile upload is the file itself, so
# the generated binary strings go as they are (a real profile's acceptance is tested in
# test/e2e/print-files.test.ts; here the refusals of anything else are).
import schemathesis


@schemathesis.serializer("application/vnd.iccprofile")
def _icc(ctx, value):
    # the body is the file itself: bytes pass as they are
    return value if isinstance(value, bytes) else str(value).encode()
