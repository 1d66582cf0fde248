import { oneLine, type SessionsContext } from "./context";

/** `sessions lineage ID [--json]`: fork ancestors and descendants, sub-agent links both ways. */
export async function lineage(context: SessionsContext): Promise<number> {
  const { host, io, values, fullScope, needIndexedId, print } = context;
  const sessionId = await needIndexedId();
  const engine = host.engine;
  const answer = await engine.traceLineage(fullScope, sessionId);
  if (values.json) {
    print(answer);
    return 0;
  }
  for (const ancestor of answer.ancestors)
    io.stdout.write(
      `↑ ${ancestor.session.id} (forked at #${ancestor.forkSeq}) ${oneLine(ancestor.session.title, 60)}\n`,
    );
  if (answer.spawnedBy !== undefined)
    io.stdout.write(
      `↑ sub-agent of ${answer.spawnedBy.session.id} at #${answer.spawnedBy.seq} ${oneLine(answer.spawnedBy.session.title, 60)}\n`,
    );
  io.stdout.write(`● ${answer.session.id} ${oneLine(answer.session.title, 60)}\n`);
  for (const link of answer.subAgents ?? [])
    io.stdout.write(
      `  ↳ sub-agent ${link.session.id} (started at #${link.seq}) ${oneLine(link.session.title, 60)}\n`,
    );
  const walk = (nodes: typeof answer.descendants, depth: number) => {
    for (const node of nodes) {
      io.stdout.write(
        `${"  ".repeat(depth)}↳ ${node.session.id} (at #${node.forkSeq}) ${oneLine(node.session.title, 60)}\n`,
      );
      walk(node.children, depth + 1);
    }
  };
  walk(answer.descendants, 1);
  return 0;
}
