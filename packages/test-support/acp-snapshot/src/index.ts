export {
  expectScenarioSnapshot,
  type ScenarioSnapshot,
  toScenarioSnapshot,
} from "./expect-snapshot";
export { createNormalizer, type Normalizer, type NormalizerOptions } from "./normalize";
export { type RunScenarioOptions, runScenario, type ScenarioResult } from "./run-scenario";
export {
  defineScenario,
  type Scenario,
  type ScenarioInput,
  type ScenarioStep,
  type ScenarioStepInput,
  scenarioSchema,
  scenarioStepSchema,
} from "./scenario";
export {
  compareSnapshotFile,
  diffLines,
  type SnapshotComparison,
  toSnapshotLines,
} from "./snapshot-file";
export type { WireEntry, WireProblem } from "./wire-capture";
