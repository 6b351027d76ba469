// An error that stops a command: a stable code, what happened, and what to do about it.

export class StaticMcpError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'StaticMcpError';
  }
}
