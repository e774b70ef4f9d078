# Loaded by scripts/schemathesis.ts (SCHEMATHESIS_HOOKS): Schemathesis sends no body in
# a media type it has no serializer for. An ICC profile upload is the file itself, and so
# is a data set (CSV or NDJSON): the generated binary strings go as they are (a real
# profile's acceptance is tested in test/e2e/print-files.test.ts, real data sets' in
# test/e2e/variable-data.test.ts; here the refusals of anything else are).
import schemathesis


def _as_sent(ctx, value):
    # the body is the file itself: bytes pass as they are
    return value if isinstance(value, bytes) else str(value).encode()


schemathesis.serializer("application/vnd.iccprofile")(_as_sent)
schemathesis.serializer("application/x-ndjson")(_as_sent)
