// The forms that try what the server offers: a tool's arguments (schema-form.ts) and its Run
// button, a resource's View button, a template's URI, a prompt's arguments; each answer shown
// under its form (result-view.ts).
import { isObject, type JsonObject } from '../core/tree/json-object.js';
import { element, safeIconUrl, uniqueId } from './dom.js';
import { answerOf, type Backend, errorView, missView, showAnswer } from './page-backend.js';
import { renderPromptMessages, renderResourceContents, renderToolResult } from './result-view.js';
import { buildSchemaFields, type ToolFacts } from './schema-form.js';
import { showApp } from './tool-apps.js';

export function enhanceTool(
  article: HTMLElement,
  tool: JsonObject,
  facts: ToolFacts,
  backend: Backend,
  appUri: string | undefined,
): void {
  const name = String(tool.name);
  const icon = (Array.isArray(tool.icons) ? tool.icons : []).map(safeIconUrl).find((url) => url !== undefined);
  // Decorative: the tool's name is right beside it.
  if (icon)
    article
      .querySelector('h3')
      ?.prepend(element('img', { src: icon, alt: '', class: 'icon', width: '24', height: '24' }), ' ');
  const form = element('form', { class: 'run-form', 'aria-label': `Try ${name}` });
  const schema = isObject(tool.inputSchema) ? tool.inputSchema : {};
  const readArguments = buildSchemaFields(form, schema, facts);
  const output = element('div', { class: 'output-area', 'aria-live': 'polite' });
  form.append(element('button', { type: 'submit' }, 'Run'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const read = readArguments();
    if ('problem' in read) {
      showAnswer(output, errorView(read.problem));
      read.field.focus();
      return;
    }
    output.setAttribute('aria-busy', 'true');
    output.replaceChildren(element('p', {}, 'Running…'));
    void answerOf(backend, 'tools/call', { name, arguments: read.args }, (files) =>
      files.callTool(name, read.args),
    ).then((answer) => {
      if ('error' in answer) showAnswer(output, errorView(answer.error));
      else if ('miss' in answer)
        showAnswer(
          output,
          missView(backend, answer.miss, `then call ${name} with ${JSON.stringify(read.args)} from your MCP client.`),
        );
      else {
        showAnswer(output, renderToolResult(answer.result));
        if (appUri && backend.appHost)
          void showApp(output, { ...backend, appHost: backend.appHost }, name, appUri, read.args, answer.result).catch(
            (error: Error) => output.append(errorView(`The tool's app cannot be shown: ${error.message}`)),
          );
      }
    });
  });
  article.querySelector('.tool-run')?.append(form, output);
}

export function enhanceResource(article: HTMLElement, resource: JsonObject, backend: Backend, template: boolean): void {
  const uri = String(template ? resource.uriTemplate : resource.uri);
  const mimeType = typeof resource.mimeType === 'string' ? resource.mimeType : undefined;
  const form = element('form', { class: 'run-form', 'aria-label': `Read ${uri}` });
  let uriInput: HTMLInputElement | undefined;
  if (template) {
    const id = uniqueId('uri');
    uriInput = element('input', { id, type: 'text', spellcheck: 'false' });
    uriInput.value = uri;
    form.append(
      element('div', { class: 'field' }, element('label', { for: id }, 'URI (fill in the template)'), uriInput),
    );
  }
  const output = element('div', { class: 'output-area', 'aria-live': 'polite' });
  form.append(element('button', { type: 'submit' }, template ? 'Read' : 'View'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const target = uriInput ? uriInput.value : uri;
    output.setAttribute('aria-busy', 'true');
    void answerOf(backend, 'resources/read', { uri: target }, (files) => files.readResource(target, mimeType)).then(
      (answer) => {
        if ('error' in answer) showAnswer(output, errorView(answer.error));
        else if ('miss' in answer)
          showAnswer(output, missView(backend, answer.miss, `then read ${target} from your MCP client.`));
        else
          showAnswer(
            output,
            renderResourceContents(Array.isArray(answer.result.contents) ? answer.result.contents : []),
          );
      },
    );
  });
  article.append(form, output);
}

export function enhancePrompt(article: HTMLElement, prompt: JsonObject, backend: Backend): void {
  const name = String(prompt.name);
  const form = element('form', { class: 'run-form', 'aria-label': `Show prompt ${name}` });
  const inputs: [string, HTMLInputElement][] = [];
  for (const argument of Array.isArray(prompt.arguments) ? prompt.arguments : []) {
    if (!isObject(argument) || typeof argument.name !== 'string') continue;
    const id = uniqueId('arg');
    const input = element('input', { id, type: 'text', spellcheck: 'false' });
    if (argument.required === true) input.setAttribute('aria-required', 'true');
    form.append(
      element(
        'div',
        { class: 'field' },
        element(
          'label',
          { for: id },
          element('code', {}, argument.name),
          argument.required === true ? ' (required)' : '',
        ),
        input,
        typeof argument.description === 'string' ? element('div', { class: 'hint' }, argument.description) : null,
      ),
    );
    inputs.push([argument.name, input]);
  }
  const output = element('div', { class: 'output-area', 'aria-live': 'polite' });
  form.append(element('button', { type: 'submit' }, 'Show'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const args = Object.fromEntries(
      inputs.filter(([, input]) => input.value !== '').map(([key, input]) => [key, input.value]),
    );
    output.setAttribute('aria-busy', 'true');
    void answerOf(backend, 'prompts/get', { name, arguments: args }, (files) => files.getPrompt(name, args)).then(
      (answer) => {
        if ('error' in answer) showAnswer(output, errorView(answer.error));
        else if ('miss' in answer)
          showAnswer(output, missView(backend, answer.miss, `then get prompt ${name} from your MCP client.`));
        else showAnswer(output, renderPromptMessages(answer.result));
      },
    );
  });
  article.append(form, output);
}
