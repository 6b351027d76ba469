// The handlers behind tools/* and resources/*, gathered in one module that the session loads
// after answering `initialize`, so a client's first answer never waits for them to compile.
export { callTool, listTools } from './tool-calls.js';
export { listResources, listResourceTemplates, readResource } from './resource-reads.js';
