/**
 * The GitHub Actions runner as the run service reaches it (a port: the action supplies it from
 * `@actions/core`; tests and other surfaces can supply their own). Log lines, annotations, step outputs,
 * the state the post step reads, the step's failure, and raw writes to the job log (workflow commands in
 * children's output are fenced by the caller, SPEC §9).
 */
export interface Runner {
  /** A plain log line. */
  info(message: string): void;
  /** A notice annotation. */
  notice(message: string): void;
  /** A warning annotation. */
  warning(message: string): void;
  /** An error annotation (does not fail the step by itself). */
  error(message: string): void;
  /** A step output (SPEC §11 outputs). */
  setOutput(name: string, value: string): void;
  /** State the post step reads (`STATE_<name>`). */
  saveState(name: string, value: string): void;
  /** Fails the step with `message`. */
  setFailed(message: string): void;
  /** Raw text to the job log (stdout). */
  write(text: string): void;
}
