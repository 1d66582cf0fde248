// How much does validation + replay cost over a bare JSON.parse of the same lines?
import { printTable, sample } from "@tapedeck/bench";
import { replayLogText } from "../src/index";
import { eventLogBuilder } from "../src/testing";

const turns = Number(process.env.BENCH_TURNS ?? 10_000);
const log = eventLogBuilder().system("You are a careful coding agent.");
for (let turn = 0; turn < turns; turn += 1) {
  log.turn().user(`Please look at file number ${turn} and fix the failing test in it.`);
  log
    .call("read_file", { path: `src/file-${turn}.ts` })
    .output(`export const value${turn} = ${turn};\n`.repeat(3));
  log.assistant(`I read src/file-${turn}.ts; the test fails because value${turn} is wrong.`).end();
}
const text = log.jsonl();
const lines = text.split("\n").slice(0, -1);
const runs = 7;
const parse = await sample(runs, () => {
  const parts = text.split("\n");
  for (let index = 0; index < parts.length - 1; index += 1) JSON.parse(parts[index]!);
});
const replay = await sample(runs, () => replayLogText(text));
const median = (values: number[]) => values[Math.floor(values.length / 2)]!;
printTable(
  `replay of ${lines.length - 1} events (${(text.length / 1e6).toFixed(1)} MB), median of ${runs}`,
  [
    {
      name: "replayLogText (parse + zod + invariants)",
      value: (lines.length - 1) / (median(replay) / 1000),
      unit: "events/s",
      baseline: (lines.length - 1) / (median(parse) / 1000),
      baselineName: "split + JSON.parse of each line",
      better: "higher",
      goal: "≥ 0.5×",
    },
  ],
);
