import * as acp from "@agentclientprotocol/sdk/unstable";
import {
  EventLogCorruptError,
  InvalidSessionIdError,
  SessionBusyError,
  SessionNotFoundError,
  TapedeckError,
} from "@tapedeck/session";
import { systemErrorMessage } from "../cli/command-failure";

/**
 * Maps an error to an ACP `RequestError` with a message a person can act on. Only the app
 * boundary does this; the packages throw Tapedeck errors.
 */
export function toRequestError(error: unknown): acp.RequestError {
  if (error instanceof acp.RequestError) return error;
  if (SessionNotFoundError.isInstance(error)) {
    return new acp.RequestError(-32002, error.message, { sessionId: error.sessionId });
  }
  if (InvalidSessionIdError.isInstance(error)) {
    return new acp.RequestError(-32602, error.message, { code: error.code });
  }
  if (SessionBusyError.isInstance(error)) {
    return new acp.RequestError(-32603, error.message, {
      code: error.code,
      sessionId: error.sessionId,
    });
  }
  if (EventLogCorruptError.isInstance(error)) {
    return new acp.RequestError(-32603, `The session log is damaged: ${error.message}`, {
      code: error.code,
      line: error.line,
      offset: error.offset,
    });
  }
  if (TapedeckError.isInstance(error)) {
    return new acp.RequestError(-32603, error.message, { code: error.code });
  }
  // A file-system error (a home that is a file, a full disk, no permission) in the CLI's words.
  const system = systemErrorMessage(error);
  if (system !== undefined) {
    const { code, path } = error as { code: string; path?: unknown };
    return new acp.RequestError(-32603, system, {
      code,
      ...(typeof path === "string" ? { path } : {}),
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new acp.RequestError(-32603, message);
}
