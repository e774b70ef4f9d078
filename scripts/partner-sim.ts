// npm run partner-sim   A partner's signup/login/forgot-password callbacks, standalone.
// PORT (4000), PARTNER_SIM_API_KEY (required): the key the service must send.
// Users: demo@example.com / demo-password, plus every signup; kept in PARTNER_SIM_USERS
// (a JSON file, passwords as salted hashes) when set, else forgotten when it stops.
import { startPartnerSimulator } from '../src/partner/simulator.ts';

const apiKey = process.env.PARTNER_SIM_API_KEY;
if (!apiKey) {
  console.error('set PARTNER_SIM_API_KEY: the X-Api-Key the service will send');
  process.exit(1);
}
const sim = await startPartnerSimulator({
  apiKey,
  port: Number(process.env.PORT ?? 4000),
  ...(process.env.PARTNER_SIM_USERS ? { usersFile: process.env.PARTNER_SIM_USERS } : {}),
});
console.log(`partner simulator at ${sim.url} (POST /signup, /login, /forgot-password)`);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => void sim.stop().then(() => process.exit(0)));
