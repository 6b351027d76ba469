// The handlers behind tools/*, resources/*, prompts/*, completion/complete and skills/*, gathered in one
// module that the session loads after answering `initialize`, so a client's first answer never
// waits for them to compile.
export { callTool, listTools, prepareInputValidators } from './tool-calls.js';
export { answerCutCall } from './cut-call-answers.js';
export { warmCutCalls } from './warm-cut-calls.js';
export { listResources, listResourceTemplates, readResource } from './resource-reads.js';
export { getPrompt, listPrompts } from './prompt-requests.js';
export { complete } from './completions.js';
export { getSkill, listSkills } from './skill-requests.js';
export { readResourceDirectory } from './skill-directories.js';
