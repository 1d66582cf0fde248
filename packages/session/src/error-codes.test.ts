import { describe, expect, it } from "vitest";
import { normalizeErrorCode } from "./error-codes";

describe("normalizeErrorCode", () => {
  it("reads an older log's lowercase model codes in today's UPPER_SNAKE", () => {
    expect(["rate_limit", "idle_timeout", "server", "model_error"].map(normalizeErrorCode)).toEqual(
      ["RATE_LIMIT", "IDLE_TIMEOUT", "SERVER", "MODEL_ERROR"],
    );
  });

  it("leaves today's codes and codes it does not know unchanged", () => {
    expect(["RATE_LIMIT", "TORN_TAIL", "x-custom", "Server"].map(normalizeErrorCode)).toEqual([
      "RATE_LIMIT",
      "TORN_TAIL",
      "x-custom",
      "Server",
    ]);
  });
});
