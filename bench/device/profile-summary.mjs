// Self time by function of each .cpuprofile in a folder (node --cpu-prof): `node profile-summary.mjs DIR`.
import { readdirSync, readFileSync } from 'node:fs';

const dir = process.argv[2];
for (const file of readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(`${dir}/${file}`, 'utf8'));
  const selfMs = new Map();
  const sampled = new Map();
  profile.samples.forEach((id, i) => sampled.set(id, (sampled.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  let total = 0;
  for (const node of profile.nodes) {
    const ms = sampled.get(node.id) ?? 0;
    total += ms;
    const name = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').pop()}:${node.callFrame.lineNumber}`;
    selfMs.set(name, (selfMs.get(name) ?? 0) + ms);
  }
  if (total - (selfMs.get('(idle) :-1') ?? 0) < 0.05 * total) continue; // an idle thread
  console.log(`${file}: ${total.toFixed(0)} ms`);
  for (const [name, ms] of [...selfMs].sort((a, b) => b[1] - a[1]).slice(0, 18)) {
    console.log(`${ms.toFixed(0).padStart(8)} ${((100 * ms) / total).toFixed(1).padStart(5)} %  ${name}`);
  }
}
