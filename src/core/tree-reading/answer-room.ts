// The room one request's answer has left under the answer cap (the cap itself is
// core/mcp/answer-budget.ts): readers claim a file's known size from it before reading the file,
// so an answer that would pass the cap is refused unread. Here, below core/mcp, because the
// tree readers take it.
/**
 * What one request may still claim before it builds its answer: the room of a batch entry is the
 * batch's budget, shared with the other entries; a single request's is a budget of its own.
 */
export interface AnswerRoom {
  /**
   * Claims `bytes` for a part of the answer about to be built (`what` names it in the refusal);
   * throws an RpcError, before anything is read, when they would pass what is left.
   */
  claim(bytes: number, what: string): void;
}
