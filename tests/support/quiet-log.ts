import { Writable } from "node:stream";
import { createLogger } from "../../server/log";

/** A logger for unit tests that writes nowhere. */
export const quietLog = createLogger(new Writable({ write: (_chunk, _encoding, done) => done() }));
