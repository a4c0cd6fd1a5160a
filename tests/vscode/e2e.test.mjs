// Tandem in real VS Code: code-server with the built .vsix installed, the real sidecar, and the
// scripted mock model (scenario.json, one reply per model request, in the order below). Driven
// like a user would, through Debian's Chromium; screenshots of each state go to
// tests/e2e/screenshots/. Run by tests/vscode/run.sh, which sets the E2E_* variables.

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { setImmediate } from 'node:timers';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const shots = join(repo, 'tests', 'e2e', 'screenshots');
const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run tests/vscode/run.sh`);
  return v;
};

/** Process groups started here; each is killed whole on exit. */
const groups = [];
function startGroup(cmd, args, options) {
  const child = spawn(cmd, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  groups.push(child);
  return child;
}
function killAll() {
  for (const child of groups.splice(0)) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
process.on('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    killAll();
    process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves with the first match of `re` in the child's output, keeping a log of it all. */
function waitForOutput(child, re, logFile, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re} in:\n${seen}`)), timeoutMs);
    const onData = (chunk) => {
      writeFileSync(logFile, chunk, { flag: 'a' });
      seen += chunk;
      const m = re.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited (${code}) before printing ${re}:\n${seen}`)));
  });
}

async function until(what, check, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

let run, workspace, page, browser, csProcess, mockUrl;
let broken = false;

/**
 * TANDEM_VSCODE_STEPS=regex runs only the steps whose names match (and the first, which opens
 * the chat); the others are skipped. The steps build on each other, so pick a subset that stands
 * alone. The mock model then gets only the selected steps' replies: each step declares how many
 * of scenario.json's replies it takes, in order, and `before` checks that they add up.
 */
const stepFilter = process.env.TANDEM_VSCODE_STEPS ? new RegExp(process.env.TANDEM_VSCODE_STEPS, 'i') : null;
/** Every step, with its replies' place in scenario.json. */
const steps = [];
let declaredReplies = 0;

/**
 * One user-visible step. The steps build on each other, so after a failure the rest are skipped;
 * the failing screen is saved next to the others. `replies`: how many of the mock model's
 * scripted replies it takes.
 */
function step(name, options, fn) {
  if (typeof options === 'function') [options, fn] = [{}, options];
  const replies = options.replies ?? 0;
  const selected = !stepFilter || steps.length === 0 || stepFilter.test(name);
  steps.push({ name, first: declaredReplies, replies, selected, fn });
  declaredReplies += replies;
}

/**
 * Registers the steps with the test runner, at the end of this file: the runner may start
 * `before` as soon as the first test is registered, and it needs every step's replies counted.
 */
function runSteps() {
  for (const { name, selected, fn } of steps) {
    if (!selected) {
      test(name, { skip: `not selected by TANDEM_VSCODE_STEPS=${process.env.TANDEM_VSCODE_STEPS}` });
      continue;
    }
    test(name, async (t) => {
      if (broken) return t.skip('an earlier step failed');
      try {
        await fn();
      } catch (e) {
        broken = true;
        await shot(`failed-${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}`).catch(() => undefined);
        throw e;
      }
    });
  }
}

/** The multi-root step's second folder, beside the run's workspace; scenario.json names it @SECOND_ROOT@. */
const secondRoot = () => join(run, 'second-root');

/**
 * The scenario the mock model serves: scenario.json (with @SECOND_ROOT@ made this run's path), or
 * its selected steps' replies alone.
 */
function scenarioFile() {
  const scenario = JSON.parse(readFileSync(join(here, 'scenario.json'), 'utf8').replaceAll('@SECOND_ROOT@', secondRoot()));
  if (declaredReplies !== scenario.responses.length) {
    throw new Error(`the steps declare ${declaredReplies} model replies but scenario.json has ${scenario.responses.length}: fix the { replies } of the step you changed`);
  }
  const served = join(run, 'scenario.json');
  if (!stepFilter) {
    writeFileSync(served, JSON.stringify(scenario, null, 2));
    return served;
  }
  const responses = steps.filter((s) => s.selected).flatMap((s) => scenario.responses.slice(s.first, s.first + s.replies));
  writeFileSync(served, JSON.stringify({ ...scenario, responses }, null, 2));
  console.log(`TANDEM_VSCODE_STEPS: ${steps.filter((s) => s.selected).length} of ${steps.length} steps, ${responses.length} model replies`);
  return served;
}

/** The extension's output channel (the sidecar's stderr included), for a failure's report. */
function tandemLog() {
  const logs = join(run, 'ud', 'logs');
  const found = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('-Tandem.log')) found.push(join(dir, e.name));
    }
  };
  try {
    walk(logs);
  } catch {
    return '(no logs)';
  }
  return found.map((f) => readFileSync(f, 'utf8')).join('\n') || '(no Tandem log)';
}

const chat = () => page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
const shot = async (name) => page.screenshot({ path: join(shots, `${name}.png`) });
const diffEditors = () => page.locator('.monaco-diff-editor');

async function send(text) {
  const prompt = chat().locator('textarea.prompt');
  await prompt.click();
  await prompt.fill(text);
  await prompt.press('Enter');
}

/** The last turn has finished: no spinner, Send enabled. */
async function turnDone() {
  await chat().locator('.working').waitFor({ state: 'detached', timeout: 60_000 });
  await chat().locator('button.send:not([disabled])').waitFor({ timeout: 10_000 });
}

const lastTurn = () => chat().locator('.turn').last();
/** An action in the chat view's title bar. */
const viewAction = (title) => page.locator(`.part.sidebar .action-label[aria-label^="${title}"]:visible`).first();

before(async () => {
  // A top-level `before` starts as it is declared, while this file is still being read: the
  // steps below are counted once its synchronous evaluation is over, one turn of the loop later.
  await new Promise((resolve) => setImmediate(resolve));
  rmSync(shots, { recursive: true, force: true });
  mkdirSync(shots, { recursive: true });
  run = mkdtempSync(join(env('TANDEM_E2E_CACHE'), 'e2e-'));
  workspace = join(run, 'workspace');
  cpSync(join(here, 'workspace'), workspace, { recursive: true });
  for (const d of ['ud/User', 'ext', 'home', 'config', 'data', 'cache', 'chromium']) mkdirSync(join(run, d), { recursive: true });

  // The mock model.
  const mock = startGroup(env('E2E_MOCK_MODEL'), ['--scenario', scenarioFile()], {});
  const [, baseUrl] = await waitForOutput(mock, /listening on (http:\/\/127\.0\.0\.1:\d+\/v1)/, join(run, 'mock-model.log'));
  mockUrl = baseUrl;

  // VS Code's settings: nothing phones home, VS Code's own chat stays out of the way, and the
  // sidecar is pointed at the mock.
  writeFileSync(
    join(run, 'ud', 'User', 'settings.json'),
    JSON.stringify(
      {
        'extensions.autoCheckUpdates': false,
        'extensions.autoUpdate': 'off',
        'update.mode': 'none',
        'telemetry.telemetryLevel': 'off',
        'workbench.enableExperiments': false,
        'workbench.startupEditor': 'none',
        'workbench.tips.enabled': false,
        'chat.disableAIFeatures': true,
        'workbench.secondarySideBar.defaultVisibility': 'hidden',
        'diffEditor.renderSideBySide': true,
        'diffEditor.useInlineViewWhenSpaceIsLimited': false,
        'security.workspace.trust.enabled': false,
        // VS Code for the web saves after a delay by default; desktop VS Code does not, and the
        // unsaved-buffer scenario needs a buffer that stays unsaved.
        'files.autoSave': 'off',
        // The run dir sits inside the repository: no "open the parent repository?" toast.
        'git.openRepositoryInParentFolders': 'never',
        'tandem.provider.baseUrl': baseUrl,
        'tandem.provider.model': 'mock-coder',
      },
      null,
      2,
    ),
  );

  const node24 = env('E2E_NODE24');
  const codeServer = env('E2E_CODE_SERVER');
  const csEnv = {
    PATH: `${dirname(node24)}:${process.env.PATH}`,
    HOME: join(run, 'home'),
    XDG_CONFIG_HOME: join(run, 'config'),
    XDG_DATA_HOME: join(run, 'data'),
    XDG_CACHE_HOME: join(run, 'cache'),
    LANG: 'C.UTF-8',
  };
  const dirs = ['--user-data-dir', join(run, 'ud'), '--extensions-dir', join(run, 'ext')];
  execFileSync(node24, [codeServer, ...dirs, '--install-extension', env('E2E_VSIX')], { env: csEnv, stdio: 'pipe' });

  const port = await freePort();
  csProcess = startGroup(
    node24,
    [codeServer, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', ...dirs, workspace],
    { env: csEnv },
  );
  await waitForOutput(csProcess, /HTTP server listening/, join(run, 'code-server.log'), 60_000);

  browser = await chromium.launchPersistentContext(join(run, 'chromium'), {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = browser.pages()[0] ?? (await browser.newPage());
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
  await page.waitForSelector('.monaco-workbench .part.activitybar', { timeout: 60_000 });
});

after(async () => {
  if (broken && run) console.error(`--- Tandem output (${run}) ---\n${tandemLog().slice(-6000)}`);
  await browser?.close().catch(() => undefined);
  killAll();
});

step('the chat view opens from the activity bar, with the endpoint’s models', async () => {
  await page.locator('.activitybar .action-item a[aria-label^="Tandem"]').click();
  await chat().locator('textarea.prompt').waitFor({ timeout: 60_000 });
  const options = chat().locator('select.model option');
  await until('the model list arrived', async () => (await options.count()) === 2);
  assert.deepEqual(await options.allTextContents(), ['mock-coder', 'mock-reasoner']);
  assert.equal(await chat().locator('select.model').inputValue(), 'mock-coder');
});

step('a prompt gets a streamed, highlighted answer with its reasoning collapsed', { replies: 1 }, async () => {
  await send('Say hello and show me a code sample');
  const answer = lastTurn().locator('.answer');
  await answer.first().waitFor();
  await until('the answer streamed in', async () => (await answer.last().textContent())?.includes('code is highlighted'));
  await turnDone();
  assert.match(await lastTurn().locator('.user').textContent(), /Say hello/);
  assert.equal(await lastTurn().locator('.answer strong').first().textContent(), 'Tandem');
  assert.ok((await lastTurn().locator('pre.code .hljs-keyword').count()) > 0, 'the code block is highlighted');
  const reasoning = lastTurn().locator('details.reasoning');
  assert.equal(await reasoning.getAttribute('open'), null, 'reasoning starts collapsed');
  assert.match(await chat().locator('.usage').textContent(), /tokens/);
  // At the side bar's default width the meter shows whole and the model's name is not cut.
  const meter = await chat().locator('.usage').evaluate((el) => ({ shown: el.getBoundingClientRect().width, needed: el.scrollWidth }));
  // (scrollWidth is whole pixels; the box may be a fraction under it.)
  assert.ok(meter.shown > 0 && meter.shown + 1 >= meter.needed, JSON.stringify(meter));
  const select = await chat().locator('select.model').evaluate((el) => {
    const probe = el.ownerDocument.createElement('span');
    probe.style.font = el.ownerDocument.defaultView.getComputedStyle(el).font;
    // Out of the body's flex column, so it is as wide as its text.
    probe.style.position = 'absolute';
    probe.textContent = el.selectedOptions[0]?.textContent ?? '';
    el.ownerDocument.body.append(probe);
    const text = probe.getBoundingClientRect().width;
    probe.remove();
    return { box: el.clientWidth, text };
  });
  assert.ok(select.box > select.text, `the model's name needs ${select.text} px, its box is ${select.box} px`);
  await shot('01-streamed-answer');
});

step('an edit opens a diff without taking the focus; the user changes the proposal and accepts it', { replies: 2 }, async () => {
  await send('Use a template literal in greet.js');
  await diffEditors().first().waitFor({ timeout: 60_000 });
  await lastTurn().locator('.approval').waitFor();
  // The user was typing in the chat: the diff opened beside, and the prompt box kept the focus.
  assert.ok(await chat().locator('textarea.prompt').evaluate((el) => el.ownerDocument.activeElement === el), 'the chat kept the focus');
  await shot('02-edit-proposed');

  // The proposal (right side) is editable: add a line, then accept from the editor title bar.
  const modified = diffEditors().first().locator('.editor.modified .view-lines');
  await modified.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('\n// checked by a human');
  // Monaco renders spaces as no-break spaces.
  await until('the edit shows in the proposal', async () => (await modified.textContent())?.replace(/\u00a0/g, ' ').includes('checked by a human'));
  await until('the diff marks the added line (the template literal line and it: 2 or more)', async () => (await diffEditors().first().locator('.editor.modified .line-insert').count()) >= 2); // the diff recomputes after typing
  await shot('03-edit-changed-by-user');
  await page.locator('.editor-actions .action-label[aria-label^="Accept Edit"]').first().click();

  await diffEditors().first().waitFor({ state: 'detached', timeout: 20_000 });
  await turnDone();
  const onDisk = readFileSync(join(workspace, 'greet.js'), 'utf8');
  assert.match(onDisk, /return `Hello, \$\{name\}!`;/, 'the proposal was written');
  assert.match(onDisk, /\/\/ checked by a human/, "the user's change was written");
  assert.equal(await lastTurn().locator('.tool .tool-state').first().textContent(), 'done');
  assert.match(await lastTurn().locator('.answer').last().textContent(), /with your change kept/);
  await shot('04-edit-accepted');
});

step('an edit rejected with a note in the chat closes its diff and the model reads the note', { replies: 2 }, async () => {
  await send('Rename greet to sayHello');
  await diffEditors().first().waitFor({ timeout: 60_000 });
  const approval = lastTurn().locator('.approval');
  // Repeated buttons carry what they act on in their accessible names.
  await approval.getByRole('button', { name: 'Reject with note… edit of greet.js' }).click();
  await approval.locator('textarea.note').fill('keep the name greet, other modules import it');
  await shot('05-edit-reject-with-note');
  await approval.getByRole('button', { name: 'Send rejection' }).click();
  await diffEditors().first().waitFor({ state: 'detached', timeout: 20_000 });
  await turnDone();
  assert.equal(await lastTurn().locator('.tool .tool-state').first().textContent(), 'rejected');
  assert.match(await lastTurn().locator('.answer').last().textContent(), /keep the name/);
  assert.doesNotMatch(readFileSync(join(workspace, 'greet.js'), 'utf8'), /sayHello/);
  await shot('06-edit-rejected');
});

step('a command approval shows the command and its directory; once run, its output streams into the card', { replies: 2 }, async () => {
  await send('Run the tests');
  const approval = lastTurn().locator('.approval-command');
  await approval.waitFor({ timeout: 60_000 });
  assert.match(await approval.locator('.command').textContent(), /for i in 1 2 3/);
  assert.equal(await approval.locator('.cwd code').textContent(), realpathSync(workspace));
  await shot('07-command-approval');
  await approval.getByRole('button', { name: /^Run command / }).click();
  const output = lastTurn().locator('.tool .output');
  await until('the first line of output streamed', async () => (await output.count()) > 0 && (await output.first().textContent()).includes('test 1 ... ok'), 20_000);
  await turnDone();
  assert.match(await output.first().textContent(), /test 3 \.\.\. ok/);
  assert.match(await lastTurn().locator('.answer').last().textContent(), /All 3 tests pass/);
  await lastTurn().locator('.tool summary').first().click();
  await lastTurn().locator('.tool .output').first().waitFor();
  await shot('08-command-output');
});

step('Stop ends a running turn', { replies: 1 }, async () => {
  await send('Count slowly to twelve');
  const answer = lastTurn().locator('.answer');
  await until('the answer started', async () => (await answer.count()) > 0 && (await answer.first().textContent()).includes('Counting'));
  await chat().locator('button.stop').click();
  await lastTurn().locator('.turn-end', { hasText: 'Stopped.' }).waitFor({ timeout: 20_000 });
  await turnDone();
  assert.doesNotMatch(await answer.first().textContent(), /twelve/);
  await shot('09-stopped');
});

step('a past session reopens from the history', async () => {
  await viewAction('New Chat').click();
  await chat().locator('.empty').waitFor();
  await shot('10-new-chat');
  await viewAction('Show Session History').click();
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Say hello' });
  await row.first().waitFor({ timeout: 20_000 });
  await shot('11-history');
  await row.first().click();
  await chat().locator('.turn').first().waitFor();
  assert.match(await chat().locator('.turn .user').first().textContent(), /Say hello/);
  assert.ok((await chat().locator('.turn').count()) >= 5, 'every turn of the session is back');
  assert.match(await chat().locator('.answer strong').first().textContent(), /Tandem/);
  await shot('12-session-reopened');
});

step('when the sidecar dies the user is told, it restarts, and the chat reloads and works', async () => {
  const ps = execFileSync('ps', ['-o', 'pid=,comm=', '-g', String(csProcess.pid)], { encoding: 'utf8' });
  const sidecar = ps
    .split('\n')
    .map((l) => l.trim().split(/\s+/))
    .find(([, comm]) => comm === 'tandem');
  assert.ok(sidecar, `no tandem process under code-server:\n${ps}`);
  process.kill(Number(sidecar[0]), 'SIGKILL');
  await chat().locator('.notice-error', { hasText: 'stopped unexpectedly' }).waitFor({ timeout: 30_000 });
  await page.locator('.notifications-toasts', { hasText: 'stopped unexpectedly' }).first().waitFor({ timeout: 10_000 });
  assert.match(await chat().locator('.turn .user').first().textContent(), /Say hello/, 'the session was reloaded');
  await shot('13-sidecar-restarted');
});

step('a selection and an @file mention go with the prompt as context', { replies: 1 }, async () => {
  // Select the first three lines of greet.js and add them from the command palette.
  await page.keyboard.press('Control+P');
  await page.locator('.quick-input-widget input').fill('greet.js');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'greet.js' }).first().waitFor();
  await page.keyboard.press('Enter');
  const editor = page.locator('.editor-instance .monaco-editor').first();
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+Home');
  for (let i = 0; i < 3; i++) await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').fill('>Tandem: Add Selection to Chat');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Add Selection to Chat' }).first().waitFor();
  await page.keyboard.press('Enter');
  await chat().locator('.chip', { hasText: 'greet.js:1-3' }).waitFor({ timeout: 10_000 });

  // Type an @mention and take the completion.
  const prompt = chat().locator('textarea.prompt');
  await prompt.click();
  await prompt.pressSequentially('Still there? Explain @gre');
  await chat().locator('.mentions .mention', { hasText: 'greet.js' }).first().waitFor({ timeout: 10_000 });
  await shot('14-context-attached');
  await prompt.press('Enter');
  assert.equal(await prompt.inputValue(), 'Still there? Explain @greet.js ');
  await prompt.press('Enter');
  // The mock answers only if the request held both pieces of context (scenario.json).
  await until('the answer came', async () => (await lastTurn().locator('.answer').count()) > 0 && (await lastTurn().locator('.answer').first().textContent()).includes('still here'));
  await turnDone();
  assert.equal(await chat().locator('.chip').count(), 0, 'the attachments went with the prompt');
  await shot('15-answer-with-context');
});

/** Opens a workspace file with Quick Open; resolves with its editor. A file made moments ago
 * may not be in Quick Open's index yet: it is asked again (a bounded poll) until it lists it. */
async function openFile(name) {
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first();
  const deadline = Date.now() + 60_000;
  for (;;) {
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget input').fill(name);
    try {
      await row.waitFor({ timeout: 5_000 });
      break;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await page.keyboard.press('Escape');
    }
  }
  await page.keyboard.press('Enter');
  const tab = page.locator('.tabs-container .tab', { hasText: name }).first();
  await tab.waitFor();
  return page.locator('.editor-group-container.active .editor-instance .monaco-editor').first();
}

/** What a Monaco editor shows (spaces as Monaco renders them, normalised). */
const shown = async (editor) => ((await editor.locator('.view-lines').textContent()) ?? '').replace(/\u00a0/g, ' ');
const tabOf = (name) => page.locator('.tabs-container .tab', { hasText: name }).first();
const isDirty = async (name) => ((await tabOf(name).getAttribute('class')) ?? '').split(/\s+/).includes('dirty');
const original = (name) => readFileSync(join(here, 'workspace', name), 'utf8');
const onDisk = (name) => readFileSync(join(workspace, name), 'utf8');
const turnWith = (prompt) => chat().locator('.turn').filter({ has: chat().locator('.user', { hasText: prompt }) });
/** Every request the mock model received. */
const mockRequests = async () => (await fetch(`${mockUrl.replace(/\/v1$/, '')}/__mock/requests`)).json();
/** No save conflict or other dialog is up, and no toast says a save failed. */
async function noConflict() {
  assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'no dialog is shown');
  const toasts = (await page.locator('.notifications-toasts').allTextContents()).join(' ');
  assert.doesNotMatch(toasts, /newer|conflict|Failed to save/i, `toasts: ${toasts}`);
}

step("an edit of a file with unsaved changes lands on them in the editor; only the agent's change is saved, the user's text stays unsaved", { replies: 3 }, async () => {
  const editor = await openFile('notes.txt');
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('- typed but not saved');
  await until('the buffer is dirty', () => isDirty('notes.txt'));
  assert.doesNotMatch(onDisk('notes.txt'), /typed but not saved/);

  // The model reads the file (the mock answers only if it saw the unsaved line) and edits it.
  await send('Mark the notes reviewed');
  await diffEditors().first().waitFor({ timeout: 60_000 });
  const proposal = diffEditors().first().locator('.editor.modified');
  await until('the proposal holds the unsaved line too', async () => (await shown(proposal)).includes('typed but not saved'));
  await shot('16-edit-of-unsaved-buffer-proposed');
  await lastTurn().locator('.approval').getByRole('button', { name: 'Accept edit of notes.txt', exact: true }).click();
  await diffEditors().first().waitFor({ state: 'detached', timeout: 20_000 });
  await turnDone();

  const text = onDisk('notes.txt');
  assert.match(text, /status: reviewed/, "the agent's change is saved");
  assert.doesNotMatch(text, /typed but not saved/, "the user's unsaved text is not saved behind their back");
  assert.doesNotMatch(text, /status: draft/);
  assert.ok(await isDirty('notes.txt'), 'the buffer still holds unsaved text');
  await tabOf('notes.txt').click();
  const active = page.locator('.editor-group-container.active .editor-instance .monaco-editor').first();
  const buffer = await shown(active);
  assert.match(buffer, /status: reviewed/);
  assert.match(buffer, /typed but not saved/);
  await noConflict();
  assert.match(await lastTurn().locator('.answer').last().textContent(), /marked reviewed/);
  await shot('17-edit-of-unsaved-buffer-saved');

  // The user's own save later is no "the file is newer" conflict: VS Code saved the agent's part.
  await active.locator('.view-lines').click();
  await page.keyboard.press('Control+S');
  await until("the user's save wrote both", async () => /typed but not saved/.test(onDisk('notes.txt')) && /status: reviewed/.test(onDisk('notes.txt')));
  await until('the editor is saved', async () => !(await isDirty('notes.txt')), 10_000);
  await noConflict();
});

step('dropping one of two hunks in the diff writes only the kept one, and the model is told', { replies: 2 }, async () => {
  await send('Tune the config: key3 and key17');
  await diffEditors().first().waitFor({ timeout: 60_000 });
  const proposal = diffEditors().first().locator('.editor.modified');
  const lens = (text) => proposal.locator('.codelens-decoration a', { hasText: text });
  await until('both hunks have their actions', async () => (await lens('Drop this change').count()) === 2, 20_000);
  await lens('Keep (1 of 2)').click();
  // A kept hunk's lens is a label, not a link.
  await proposal.locator('.codelens-decoration', { hasText: 'Kept (1 of 2)' }).waitFor({ timeout: 10_000 });
  await lens('Drop this change').nth(1).click();
  await until('the second hunk is gone from the proposal', async () => (await lens('Drop this change').count()) === 1, 10_000);
  await until('the proposal has key17 back', async () => /key17 = 17(?!0)/.test(await shown(proposal)));
  await until('the diff marks only the kept change', async () => (await proposal.locator('.line-insert').count()) <= 1); // the diff recomputes
  await shot('18-hunk-dropped');
  await page.locator('.editor-actions .action-label[aria-label^="Accept Edit"]').first().click();
  await diffEditors().first().waitFor({ state: 'detached', timeout: 20_000 });
  await turnDone();

  const text = onDisk('config.txt');
  assert.match(text, /^key3 = 300$/m, 'the kept hunk is written');
  assert.match(text, /^key17 = 17$/m, 'the dropped hunk is not');
  assert.equal(text, original('config.txt').replace('key3 = 3\n', 'key3 = 300\n'));
  const requests = (await mockRequests()).filter((r) => r.path.endsWith('/chat/completions'));
  const tool = requests.at(-1).body.messages.filter((m) => m.role === 'tool').at(-1);
  assert.match(tool.content, /The user dropped 1 of the 2 changes/);
  assert.match(tool.content, /change 2 \(at line 14/);
  assert.match(await lastTurn().locator('.changes').textContent(), /Changed 1 file: config\.txt/);
  await shot('19-hunk-kept-written');
});

step("Review Changes opens the turn's change set in the multi-diff editor, from before the turn to the file now", async () => {
  await turnWith('Tune the config').locator('button.review-changes').click();
  const tab = page.locator('.tabs-container .tab', { hasText: 'Tandem: changes of turn' }).first();
  await tab.waitFor({ timeout: 20_000 });
  const diff = diffEditors().first();
  await diff.waitFor({ timeout: 20_000 });
  await until('the before side is config.txt before the turn', async () => /key3 = 3(?!0)/.test(await shown(diff.locator('.editor.original'))));
  await until('the other side is the file now', async () => /key3 = 300/.test(await shown(diff.locator('.editor.modified'))));
  await shot('19b-turn-changes');
  await tab.hover();
  await tab.locator('.tab-actions .action-label').first().click();
  await tab.waitFor({ state: 'detached', timeout: 10_000 });
  assert.equal(await diffEditors().count(), 0, 'no diff is left open');
});

step('restoring a turn whose file the user changed since asks first, and loses nothing unless told to', async () => {
  // The user adds a line of their own to config.txt and saves it.
  const editor = await openFile('config.txt');
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('# my own tuning');
  await page.keyboard.press('Control+S');
  await until('config.txt is saved', async () => onDisk('config.txt').includes('# my own tuning'));

  const turn = turnWith('Tune the config');
  await turn.locator('button.restore').click();
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 20_000 });
  assert.match(await dialog.textContent(), /config\.txt was changed after the agent wrote it/);
  assert.match(await dialog.textContent(), /The diff beside this dialog shows what you would lose/);
  // What would be lost is a diff, whole: the user's text now on the left, the restored file on the right.
  const lossTab = page.locator('.tabs-container .tab', { hasText: 'after restoring' });
  await lossTab.first().waitFor({ timeout: 10_000 });
  const loss = diffEditors().first();
  await until('the loss diff shows the user’s line on the left', async () => (await shown(loss.locator('.editor.original'))).includes('# my own tuning'));
  assert.doesNotMatch(await shown(loss.locator('.editor.modified')), /# my own tuning/);
  await shot('20-restore-asks');
  // Enter takes the default button, which keeps the user's work.
  await page.keyboard.press('Enter');
  await chat().locator('.notice', { hasText: 'Nothing was restored' }).waitFor({ timeout: 10_000 });
  await lossTab.first().waitFor({ state: 'detached', timeout: 10_000 });
  assert.match(onDisk('config.txt'), /# my own tuning/, 'declined: the user’s line is still there');
  assert.match(onDisk('config.txt'), /key3 = 300/);

  await turn.locator('button.restore').click();
  await dialog.waitFor({ timeout: 20_000 });
  await dialog.getByRole('button', { name: 'Restore Anyway' }).click();
  await chat().locator('.notice', { hasText: 'Restored the files to before this turn: config.txt' }).waitFor({ timeout: 20_000 });
  await until('config.txt is as it was before the turn', async () => onDisk('config.txt') === original('config.txt'));
  await until('its editor is saved', async () => !(await isDirty('config.txt')), 10_000);
  await noConflict();
  await shot('21-restored-after-confirm');
});

step('"Restore to here" on an earlier turn puts its file back, and the model is told', { replies: 1 }, async () => {
  await turnWith('Mark the notes reviewed').locator('button.restore').click();
  await chat().locator('.notice', { hasText: 'Restored the files to before this turn: notes.txt' }).waitFor({ timeout: 20_000 });
  await until('notes.txt is as before the turn', async () => /status: draft/.test(onDisk('notes.txt')));
  assert.doesNotMatch(onDisk('notes.txt'), /status: reviewed/);
  // Before that turn the editor held the user's unsaved line: that is what comes back.
  assert.match(onDisk('notes.txt'), /- typed but not saved/);
  assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'nothing the user changed: no question');
  await send('What is in config.txt now?');
  await until('the answer came', async () => (await lastTurn().locator('.answer').count()) > 0 && /back as they were/.test(await lastTurn().locator('.answer').first().textContent()));
  await turnDone();
  await shot('22-restored-earlier-turn');
});

step('8 MiB of command output leaves the chat responsive', { replies: 2 }, async () => {
  await send('Print the big log');
  const approval = lastTurn().locator('.approval-command');
  await approval.waitFor({ timeout: 60_000 });
  await approval.getByRole('button', { name: /^Run command / }).click();
  const prompt = chat().locator('textarea.prompt');
  // Typing while the output streams in (or right after) shows at once.
  const started = Date.now();
  await prompt.click();
  await prompt.pressSequentially('still typing', { delay: 0 });
  await until('the typed text shows', async () => (await prompt.inputValue()) === 'still typing', 5_000);
  const typingMs = Date.now() - started;
  await shot('23-big-output-streaming');
  await turnDone();
  assert.ok(typingMs < 5_000, `typing took ${typingMs} ms`);
  // A finished card folds; open it to look at the output.
  await lastTurn().locator('.tool summary').first().click();
  const output = lastTurn().locator('.tool .output').first();
  await output.waitFor();
  const text = await output.textContent();
  // Once finished, the card shows the tool's result (the output's head and tail), bounded.
  assert.ok(text.length <= 300 * 1024, `the card holds ${text.length} characters`);
  assert.match(text, /tandem e2e output line/);
  assert.match(await lastTurn().locator('.answer').last().textContent(), /The log is printed/);
  // Still responsive after: clear and type again.
  const again = Date.now();
  await prompt.fill('');
  await prompt.pressSequentially('and after', { delay: 0 });
  assert.equal(await prompt.inputValue(), 'and after');
  console.log(`typing during the output: ${typingMs} ms; after: ${Date.now() - again} ms; the card holds ${text.length} characters`);
  await shot('24-big-output-done');
  await prompt.fill('');

  // The whole 8 MiB, kept by the sidecar, opens in an editor.
  await lastTurn().locator('.tool button.open-output').click();
  const logTab = page.locator('.tabs-container .tab', { hasText: '.log' }).first();
  await logTab.waitFor({ timeout: 20_000 });
  const opened = page.locator('.editor-group-container.active .editor-instance .monaco-editor').first();
  await until('the output shows in the editor', async () => (await shown(opened)).includes('tandem e2e output line'));
  await shot('24b-whole-output-in-an-editor');
  await page.keyboard.press('Control+W');
  await logTab.waitFor({ state: 'detached', timeout: 10_000 });
});

step('a file the agent created, then Undo Last Turn deleted, is gone for the editor and the agent (no ghost)', { replies: 5 }, async () => {
  await send('Create ghost.txt');
  await diffEditors().first().waitFor({ timeout: 60_000 });
  await lastTurn().locator('.approval').getByRole('button', { name: 'Accept creation of ghost.txt', exact: true }).click();
  await turnDone();
  assert.equal(onDisk('ghost.txt'), 'boo\n');
  // The user looks at it: VS Code now holds it open, and syncs it to the sidecar.
  await openFile('ghost.txt');

  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').fill('>Tandem: Undo Last Turn');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Undo Last Turn' }).first().waitFor();
  await page.keyboard.press('Enter');
  await chat().locator('.notice', { hasText: 'Restored the files to before the last turn that changed files: ghost.txt' }).waitFor({ timeout: 20_000 });
  assert.equal(existsSync(join(workspace, 'ghost.txt')), false, 'the undo deleted it');
  // The sidecar said so (tandem/filesChanged): its editor closed.
  await tabOf('ghost.txt').waitFor({ state: 'detached', timeout: 10_000 });
  await shot('25-ghost-closed-after-undo');

  // The agent no longer sees the old text: the read finds nothing, and creating it again works
  // (before, the editor's stale copy answered: "already holds exactly this content").
  await send('Read ghost.txt and create it again if it is gone');
  await diffEditors().first().waitFor({ timeout: 60_000 });
  await lastTurn().locator('.approval').getByRole('button', { name: 'Accept creation of ghost.txt', exact: true }).click();
  await turnDone();
  assert.match(await lastTurn().locator('.answer').last().textContent(), /created it again/);
  assert.equal(onDisk('ghost.txt'), 'boo\n');
  await shot('26-ghost-created-again');
});

step('from the chat, Ctrl+Alt+Enter accepts and Ctrl+Alt+Backspace rejects the edit in the diff; Escape stops a turn', { replies: 4 }, async () => {
  await send('Add a keys line');
  await diffEditors().first().waitFor({ timeout: 60_000 });
  await lastTurn().locator('.approval').waitFor();
  const prompt = chat().locator('textarea.prompt');
  await prompt.click();
  await page.keyboard.press('Control+Alt+Enter');
  await until('keys.txt is written', async () => existsSync(join(workspace, 'keys.txt')), 20_000);
  assert.equal(onDisk('keys.txt'), 'accepted by keys\n');

  // The next edit: rejected from the chat.
  await lastTurn().locator('.approval', { hasText: 'keys2.txt' }).waitFor({ timeout: 60_000 });
  await diffEditors().first().waitFor({ timeout: 20_000 });
  await prompt.click();
  await page.keyboard.press('Control+Alt+Backspace');
  await turnDone();
  assert.equal(existsSync(join(workspace, 'keys2.txt')), false, 'the rejected edit wrote nothing');
  assert.match(await lastTurn().locator('.answer').last().textContent(), /One accepted, one rejected/);
  assert.deepEqual(await lastTurn().locator('.tool .tool-state').allTextContents(), ['done', 'rejected']);

  // Escape in the chat stops a running turn.
  await send('Count slowly again');
  const answer = lastTurn().locator('.answer');
  await until('the answer started', async () => (await answer.count()) > 0 && (await answer.first().textContent()).includes('Counting'));
  await prompt.press('Escape');
  await lastTurn().locator('.turn-end', { hasText: 'Stopped.' }).waitFor({ timeout: 20_000 });
  await turnDone();
  assert.doesNotMatch(await answer.first().textContent(), /twelve/);
  await shot('27-keys-from-the-chat');
});

step('plan mode from the picker, a custom command from the / menu, and the plan pinned above the chat', { replies: 2 }, async () => {
  const picker = chat().locator('.mode-picker');
  await picker.getByRole('radio', { name: 'Plan' }).click();
  await picker.locator('button.mode.selected', { hasText: 'Plan' }).waitFor({ timeout: 10_000 });
  const before = onDisk('greet.js');

  const prompt = chat().locator('textarea.prompt');
  await prompt.click();
  await prompt.fill('');
  await prompt.pressSequentially('/chec');
  const row = chat().locator('.slash-menu .slash-command', { hasText: '/checklist' });
  await row.waitFor({ timeout: 10_000 });
  assert.match(await row.textContent(), /<file>.*Plan a change as a checklist.*project/);
  await shot('25-slash-menu');
  await prompt.press('Enter');
  assert.equal(await prompt.inputValue(), '/checklist ');
  await prompt.pressSequentially('greet.js');
  await prompt.press('Enter');

  const plan = chat().locator('.plan');
  await plan.locator('.plan-step').nth(2).waitFor({ timeout: 60_000 });
  await turnDone();
  assert.equal(await plan.locator('.plan-count').textContent(), '1/3');
  assert.equal(await plan.locator('.plan-explanation').textContent(), 'Read first, then change.');
  assert.deepEqual(await plan.locator('.plan-step').evaluateAll((els) => els.map((e) => e.className)), ['plan-step completed', 'plan-step inProgress', 'plan-step pending']);
  // The icons are VS Code's codicons, loaded in the webview.
  assert.ok(await plan.locator('.codicon').first().evaluate((el) => el.ownerDocument.fonts.check('16px codicon')), 'the codicon font is loaded');
  // Plan mode: the write was refused without a question, and nothing changed.
  assert.equal(await chat().locator('.approval-edit').count(), 0);
  assert.equal(await diffEditors().count(), 0);
  assert.equal(onDisk('greet.js'), before);
  assert.match(await lastTurn().locator('.answer').last().textContent(), /The plan is above/);
  // The plan appeared above the log mid-answer; the chat still follows to the answer's end.
  const below = await chat().locator('.log').evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight);
  assert.ok(below < 40, `the answer's end is ${below} px below the fold`);
  const requests = (await mockRequests()).filter((r) => r.path.endsWith('/chat/completions'));
  const offered = requests.at(-2).body.tools.map((d) => d.function.name);
  assert.ok(offered.includes('update_plan') && !offered.includes('write_to_file'), `${offered}`);
  await shot('26-plan-pinned');

  await picker.getByRole('radio', { name: 'Act' }).click();
  await picker.locator('button.mode.selected', { hasText: 'Act' }).waitFor({ timeout: 10_000 });
});

step('a pasted screenshot shows as a thumbnail, can be removed, and reaches the model as an image', { replies: 1 }, async () => {
  const png = readFileSync(join(repo, 'tests', 'fixtures', 'images', 'shot.png')).toString('base64');
  const prompt = chat().locator('textarea.prompt');
  // What the clipboard holds after a screenshot tool: an image file, no text.
  const paste = () =>
    prompt.evaluate((el, data) => {
      // The webview's own window: this runs in its frame.
      const w = el.ownerDocument.defaultView;
      const bytes = Uint8Array.from(w.atob(data), (c) => c.charCodeAt(0));
      const clipboard = new w.DataTransfer();
      clipboard.items.add(new w.File([bytes], 'image.png', { type: 'image/png' }));
      el.dispatchEvent(new w.ClipboardEvent('paste', { clipboardData: clipboard, bubbles: true, cancelable: true }));
    }, png);
  await paste();
  const thumb = chat().locator('.image-chip img.thumb');
  await thumb.waitFor();
  // It rendered under the strict CSP (data: images only): the browser decoded it.
  assert.equal(await thumb.evaluate((img) => img.naturalWidth), 64);
  await chat().locator('.image-chip .chip-remove').click();
  assert.equal(await chat().locator('.image-chip').count(), 0, 'removed before sending');
  await paste();
  await thumb.waitFor();
  await shot('25-pasted-image');
  await send('What is in this screenshot?');
  // The new turn's answer, not the last one's: Send may be enabled before the turn shows.
  await until('the answer came', async () => /white square/.test((await lastTurn().locator('.answer').last().textContent().catch(() => '')) ?? ''), 60_000);
  await turnDone();
  assert.equal(await chat().locator('.image-chip').count(), 0, 'the image went with the prompt');
  const sent = (await mockRequests()).filter((r) => r.path.endsWith('/chat/completions')).at(-1);
  const user = sent.body.messages.filter((m) => m.role === 'user').at(-1);
  assert.deepEqual(user.content, [
    { type: 'text', text: 'What is in this screenshot?' },
    { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
  ]);
});

step('a model request that fails and is retried says so in the chat until the answer comes', { replies: 2 }, async () => {
  // The mock answers 500 once and asks for a 4 s wait (retry-after-ms): long enough to see.
  await send('Are you there?');
  const retrying = lastTurn().locator('.working.retrying');
  await retrying.waitFor({ timeout: 30_000 });
  assert.equal(await retrying.textContent(), 'Server answered 500; retrying (1/4) in 4.0 s…');
  await shot('27-retrying');
  await turnDone();
  assert.equal(await lastTurn().locator('.retrying').count(), 0, 'the line went with the answer');
  assert.match(await lastTurn().locator('.answer').last().textContent(), /Yes, after one retry/);
  assert.equal(await lastTurn().locator('.turn-end').count(), 0, 'no error card');
});

step('with no model server the chat says so before a prompt and offers the ways forward; it goes once one answers', async () => {
  // Through the Settings editor, as a user would: code-server does not notice settings.json
  // written behind its back (that is why the earlier Get Started view was never seen here).
  const setBaseUrl = async (url) => {
    await page.keyboard.press('F1');
    await page.locator('.quick-input-widget input').fill('>Tandem: Open Settings');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Tandem: Open Settings' }).first().waitFor();
    await page.keyboard.press('Enter');
    const input = page.locator('.settings-editor .setting-item', { hasText: 'Base Url' }).locator('input').first();
    await input.waitFor({ timeout: 20_000 });
    await input.fill(url);
    await input.press('Tab');
    // The editor writes the setting a moment later; closing it first would lose the change.
    const settingsFile = join(run, 'ud', 'User', 'settings.json');
    const written = () => {
      try {
        return JSON.parse(readFileSync(settingsFile, 'utf8'))['tandem.provider.baseUrl'] === url;
      } catch {
        return false; // caught while VS Code writes it
      }
    };
    await until('the setting is written', async () => written());
    // This code-server opens the Settings editor as a modal over the workbench: close it.
    const modal = page.locator('.monaco-modal-editor-block');
    await modal.locator('[aria-label^="Close"]').first().click();
    await modal.waitFor({ state: 'detached', timeout: 10_000 });
  };
  const dead = `http://127.0.0.1:${await freePort()}/v1`;
  await setBaseUrl(dead);
  // A new user's first sight: an empty chat.
  await viewAction('New Chat').click();
  await until('the chat is empty', async () => (await chat().locator('.turn').count()) === 0);
  // The sidecar restarts with the new endpoint and asks it for models before any prompt
  // (a refused connection is retried for a few seconds first).
  const card = chat().locator('.welcome-card', { hasText: 'did not answer' });
  await card.waitFor({ timeout: 60_000 });
  assert.match(await card.textContent(), new RegExp(`The model server at ${dead.replace(/[.:/]/g, '\\$&')} did not answer`));
  assert.deepEqual(await card.locator('button').allTextContents(), ['Retry', 'Set Base URL', 'Show Output']);
  // Each button's icon is a codicon that rendered (the font loaded under the CSP: it has a width).
  for (const i of await card.locator('button .codicon').all()) assert.ok((await i.evaluate((el) => el.getBoundingClientRect().width)) > 0);

  // Focus ring: the theme's focusBorder, around a button reached from the keyboard.
  const retry = card.getByRole('button', { name: 'Retry' });
  await retry.focus();
  // Back and forth with the keyboard, so the browser shows the ring (:focus-visible).
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab');
  assert.ok(await retry.evaluate((el) => el.ownerDocument.activeElement === el), 'Tab came back to Retry');
  const ring = await retry.evaluate((el) => {
    const w = el.ownerDocument.defaultView;
    const probe = el.ownerDocument.createElement('span');
    probe.style.color = 'var(--vscode-focusBorder)';
    el.ownerDocument.body.append(probe);
    const focusBorder = w.getComputedStyle(probe).color;
    probe.remove();
    const s = w.getComputedStyle(el);
    return { visible: el.matches(':focus-visible'), style: s.outlineStyle, width: s.outlineWidth, color: s.outlineColor, focusBorder };
  });
  assert.ok(ring.visible, 'focus-visible');
  assert.deepEqual([ring.style, ring.width, ring.color], ['solid', '1px', ring.focusBorder], JSON.stringify(ring));
  await shot('28-welcome-no-server');

  // The first prompt fails; the card shrinks to one line so the prompt and its error show whole,
  // and the error card's buttons are not repeated above it.
  await send('Hello?');
  await lastTurn().locator('.turn-end').waitFor({ timeout: 60_000 });
  await turnDone();
  const compact = chat().locator('.welcome-card.compact');
  await compact.waitFor({ timeout: 10_000 });
  assert.deepEqual(await compact.locator('button').allTextContents(), ['Retry']);
  const height = await compact.evaluate((el) => el.getBoundingClientRect().height);
  assert.ok(height < 60, `the compact card is ${height} px tall`);
  assert.ok(await lastTurn().locator('.turn-end').isVisible(), 'the error shows');
  await shot('28b-welcome-compact');

  await setBaseUrl(mockUrl);
  await chat().locator('.welcome-card').waitFor({ state: 'detached', timeout: 60_000 });
  const options = chat().locator('select.model option');
  await until('the models are back', async () => (await options.count()) === 2);
  await shot('29-welcome-gone');
});

step('an approval that waits while the chat is hidden badges the Tandem icon and shows in the status bar, which brings the chat back', { replies: 2 }, async () => {
  await send('Add left-pad');
  const approval = lastTurn().locator('.approval-command');
  await approval.waitFor({ timeout: 60_000 });
  // The user looks elsewhere: the Explorer takes the side bar.
  await page.locator('.activitybar .action-item a[aria-label^="Explorer"]').click();
  await until('the chat is hidden', async () => !(await page.locator('iframe.webview.ready').first().isVisible()));
  const item = page.locator('.statusbar-item', { hasText: 'Tandem: an approval waits' });
  await item.waitFor({ timeout: 20_000 });
  const badge = page.locator('.activitybar .action-item:has(a[aria-label^="Tandem"]) .badge-content');
  await until('the badge shows 1', async () => (await badge.count()) > 0 && (await badge.first().textContent()).trim() === '1');
  await shot('30-approval-while-hidden');
  await item.click();
  await approval.waitFor({ state: 'visible', timeout: 20_000 });
  await item.waitFor({ state: 'hidden', timeout: 20_000 });
  await approval.locator('button', { hasText: /^Reject$/ }).click();
  await turnDone();
  await until('the badge is gone', async () => (await badge.count()) === 0 || !(await badge.first().isVisible()));
});

step("@problems, offered by the @ menu, sends the editor's problems with the prompt", { replies: 1 }, async () => {
  writeFileSync(join(workspace, 'broken.json'), '{"a": 1 "b": 2}\n');
  const editor = await openFile('broken.json');
  // VS Code's JSON service has looked at it: its squiggle is drawn.
  await editor.locator('.squiggly-error').first().waitFor({ timeout: 30_000 });
  const prompt = chat().locator('textarea.prompt');
  await prompt.click();
  await prompt.pressSequentially('What is wrong? @prob');
  await chat().locator('.mentions .mention', { hasText: 'problems' }).first().waitFor({ timeout: 10_000 });
  await prompt.press('Enter');
  assert.equal(await prompt.inputValue(), 'What is wrong? @problems ');
  await prompt.press('Enter');
  // The mock answers only if the request held the problem (scenario.json).
  await until('the answer came', async () => ((await lastTurn().locator('.answer').first().textContent()) ?? '').includes('comma is missing'));
  await turnDone();
  await shot('31-problems-in-context');
});

step('Ctrl+I on a line asks what should change; the edit comes back as a diff beside it, accepted', { replies: 2 }, async () => {
  writeFileSync(join(workspace, 'inline.js'), 'function add(a, b) {\n  return a + b + 0;\n}\n');
  const editor = await openFile('inline.js');
  await editor.locator('.view-lines').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Control+I');
  const input = page.locator('.quick-input-widget input');
  await page.locator('.quick-input-widget', { hasText: 'Tandem: Edit inline.js:2' }).waitFor({ timeout: 10_000 });
  await input.fill('drop the no-op');
  await shot('32-inline-edit-asked');
  await page.keyboard.press('Enter');
  // The mock proposes the edit only if the request held the instruction and line 2 (scenario.json).
  await diffEditors().first().waitFor({ timeout: 60_000 });
  await shot('33-inline-edit-diff');
  // The diff opened beside the editor (its title bar is narrow there): accept from the chat.
  await lastTurn().locator('.approval button', { hasText: /^Accept$/ }).click();
  await diffEditors().first().waitFor({ state: 'detached', timeout: 20_000 });
  await turnDone();
  assert.equal(onDisk('inline.js'), 'function add(a, b) {\n  return a + b;\n}\n');
});

step("a command the agent runs changes, creates and deletes files: its card lists them, Review Changes shows the three, Undo Last Turn puts them back", { replies: 2 }, async () => {
  // Which way this machine records a command's writes, asked as the sidecar asks (the same
  // user, data dir and kernel): the overlay in the command's mount namespace is the point here.
  const doctor = JSON.parse(
    execFileSync(env('E2E_TANDEM'), ['doctor', '--json'], { encoding: 'utf8', env: { ...process.env, HOME: join(run, 'home'), XDG_CONFIG_HOME: join(run, 'config'), XDG_DATA_HOME: join(run, 'data') } }),
  );
  assert.equal(doctor.commandWrites?.way, 'overlay', `commands' writes are not caught by the overlay here: ${JSON.stringify(doctor.commandWrites)}`);

  await send('Bump the version');
  const approval = lastTurn().locator('.approval-command');
  await approval.waitFor({ timeout: 60_000 });
  await approval.getByRole('button', { name: /^Run command / }).click();
  await turnDone();
  assert.equal(onDisk('version.txt'), 'version = 2\n');
  assert.equal(onDisk('made.txt'), 'made by a command\n');
  assert.equal(existsSync(join(workspace, 'obsolete.txt')), false);
  // The model was told what the command changed: the sidecar caught its writes (the mock
  // answered only if the tool result said so, scenario.json).
  assert.match(await lastTurn().locator('.answer').last().textContent(), /Bumped the version/);
  const told = (await mockRequests()).filter((r) => r.path.endsWith('/chat/completions')).at(-1).body.messages.filter((m) => m.role === 'tool').at(-1).content;
  for (const line of ['version.txt (modified +1 -1)', 'made.txt (created +1 -0)', 'obsolete.txt (deleted']) assert.ok(told.includes(line), `${line} in:\n${told}`);

  // The command's card lists its files, each with what happened.
  const rows = lastTurn().locator('.tool .files-changed li');
  await until('the card lists three files', async () => (await rows.count()) === 3);
  const listed = (await rows.allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim()).sort();
  assert.deepEqual(listed.map((t) => t.split(' (')[0]), ['made.txt created', 'obsolete.txt deleted', 'version.txt modified']);
  assert.match(await lastTurn().locator('.changes').textContent(), /Changed 3 files/);
  await shot('34-command-changed-files');

  // Review Changes: the three in one multi-diff editor.
  await lastTurn().locator('button.review-changes').click();
  const tab = page.locator('.tabs-container .tab', { hasText: 'Tandem: changes of turn' }).first();
  await tab.waitFor({ timeout: 20_000 });
  await until('three diffs are shown', async () => (await diffEditors().count()) === 3, 20_000);
  const editorText = async () => (await page.locator('.editor-group-container.active').textContent()) ?? '';
  await until('each file is named', async () => {
    const text = await editorText();
    return ['version.txt', 'made.txt', 'obsolete.txt'].every((f) => text.includes(f));
  });
  const sides = async (side) => Promise.all((await diffEditors().all()).map((d) => shown(d.locator(`.editor.${side}`))));
  await until('before and after of each', async () => {
    const [before, after] = [(await sides('original')).join('|'), (await sides('modified')).join('|')];
    return before.includes('version = 1') && before.includes('remove me') && after.includes('version = 2') && after.includes('made by a command');
  });
  await shot('35-command-changes-reviewed');
  await tab.hover();
  await tab.locator('.tab-actions .action-label').first().click();
  await tab.waitFor({ state: 'detached', timeout: 10_000 });

  // Undo Last Turn: every byte back, the created file gone, the deleted one back.
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').fill('>Tandem: Undo Last Turn');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Undo Last Turn' }).first().waitFor();
  await page.keyboard.press('Enter');
  await chat().locator('.notice', { hasText: 'Restored the files to before the last turn that changed files' }).last().waitFor({ timeout: 20_000 });
  await until('the files are as before the command', async () => existsSync(join(workspace, 'obsolete.txt')) && !existsSync(join(workspace, 'made.txt')));
  assert.equal(onDisk('version.txt'), original('version.txt'));
  assert.equal(onDisk('obsolete.txt'), original('obsolete.txt'));
  assert.equal(existsSync(join(workspace, 'made.txt')), false);
  await shot('36-command-changes-undone');
});

step('editing an earlier prompt and sending it continues a new chat from before it; the files stay unless the user restores them', { replies: 4 }, async () => {
  await viewAction('New Chat').click();
  await until('the chat is empty', async () => (await chat().locator('.turn').count()) === 0);
  await send('Name a colour');
  await turnDone();
  // The second prompt goes with a selection of README.md: the edited prompt keeps it.
  const readme = await openFile('README.md');
  await readme.locator('.view-lines').click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('Shift+End');
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').fill('>Tandem: Add Selection to Chat');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Add Selection to Chat' }).first().waitFor();
  await page.keyboard.press('Enter');
  await chat().locator('.chip', { hasText: 'README.md' }).waitFor({ timeout: 10_000 });
  await send('Create fork.txt');
  await diffEditors().first().waitFor({ timeout: 60_000 });
  await lastTurn().locator('.approval').getByRole('button', { name: 'Accept creation of fork.txt', exact: true }).click();
  await turnDone();
  assert.equal(onDisk('fork.txt'), 'fork\n');

  // Edit the second prompt: its text comes back in the box.
  await turnWith('Create fork.txt').locator('button.edit-prompt').click();
  const prompt = chat().locator('textarea.prompt');
  assert.equal(await prompt.inputValue(), 'Create fork.txt');
  await chat().locator('.composer .editing', { hasText: 'Editing an earlier prompt' }).waitFor();
  await chat().locator('.composer .chip', { hasText: 'README.md' }).waitFor({ timeout: 10_000 });
  await prompt.fill('Name a fruit instead');
  await shot('37-editing-an-earlier-prompt');
  await prompt.press('Enter');
  // That turn changed a file: asked, and Enter (the default) keeps the files as they are.
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ timeout: 20_000 });
  assert.match(await dialog.textContent(), /restore them too\?/);
  await shot('38-fork-asks-about-files');
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'detached', timeout: 10_000 });
  await until('the answer came', async () => ((await lastTurn().locator('.answer').last().textContent().catch(() => '')) ?? '').includes('Apple.'));
  await turnDone();

  // The chat is the fork: the first turn, then the edited prompt; the second turn is gone.
  assert.deepEqual((await chat().locator('.turn .user').allTextContents()).map((t) => t.trim()), ['Name a colour', 'Name a fruit instead']);
  await chat().locator('.notice', { hasText: 'Continued as a new chat' }).waitFor();
  assert.equal(onDisk('fork.txt'), 'fork\n', 'the files were kept');
  // What the model got: the edited prompt and what came before it, not the turn it replaced.
  const sent = (await mockRequests()).filter((r) => r.path.endsWith('/chat/completions')).at(-1);
  const texts = JSON.stringify(sent.body.messages);
  for (const kept of ['Name a colour', 'Blue.', 'Name a fruit instead', 'README.md\\" lines=\\"1-1\\"']) assert.ok(texts.includes(kept), `${kept} in ${texts}`);
  for (const gone of ['Create fork.txt', 'Created fork.txt']) assert.ok(!texts.includes(gone), `${gone} still in ${texts}`);
  await shot('39-forked-chat');

  // The original chat is in the history, whole.
  await viewAction('Show Session History').click();
  const rows = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Name a colour' });
  await until('both chats are listed', async () => (await rows.count()) === 2);
  await page.keyboard.press('Escape');
});

/**
 * When VS Code last activated Tandem, after `since` (ms since the epoch), from the extension
 * host's log (local time, this machine's clock); undefined when it does not say.
 */
function activatedAfter(since) {
  const found = [];
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name === 'remoteexthost.log') found.push(join(dir, e.name));
    }
  };
  walk(join(run, 'ud', 'logs'));
  const times = found
    .flatMap((f) => readFileSync(f, 'utf8').split('\n'))
    .map((l) => /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d{3}) .*_doActivateExtension tandem\.tandem\b/.exec(l))
    .filter(Boolean)
    .map(([, day, time]) => new Date(`${day}T${time}`).getTime());
  return times.filter((t) => t >= since).sort((a, b) => a - b)[0];
}

/**
 * The 30 prompts of the reload step, in order; scenario.json answers each with "Answer N of 30"
 * and a code block, every third one (1, 4, …, 28) after reading greet.js.
 */
const RELOAD_TURNS = 30;
const RELOAD_READS = 10;
const reloadPrompt = (n) => `Reload turn ${n} of ${RELOAD_TURNS}: show a sample`;

// Last: it reloads the whole window. How long the chat takes to come back is printed, not
// asserted (no timed assertions): the figure is for the reader (issue 33 asks for < 3 s).
step(`after Developer: Reload Window a chat of ${RELOAD_TURNS} turns comes back whole and in order`, { replies: RELOAD_TURNS + RELOAD_READS }, async () => {
  await viewAction('New Chat').click();
  await until('the chat is empty', async () => (await chat().locator('.turn').count()) === 0);
  for (let n = 1; n <= RELOAD_TURNS; n++) {
    await send(reloadPrompt(n));
    await lastTurn().locator('.answer', { hasText: `That is answer ${n}.` }).waitFor({ timeout: 30_000 });
    await turnDone();
  }
  assert.equal(await chat().locator('.turn').count(), RELOAD_TURNS);

  const reloaded = page.waitForEvent('load', { timeout: 60_000 });
  await page.keyboard.press('F1');
  await page.locator('.quick-input-widget input').fill('>Developer: Reload Window');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Reload Window' }).first().waitFor();
  const start = Date.now();
  await page.keyboard.press('Enter');
  await reloaded;
  await page.waitForSelector('.monaco-workbench .part.activitybar', { timeout: 60_000 });
  const workbench = Date.now();
  // Timed inside the chat's own frame (the same clock), when its DOM has the 30th answer: polling
  // from here through two frames adds a delay of its own. VS Code's webview page holds the chat
  // in an iframe that is `pending-frame` while it loads and `active-frame` after.
  const frame = await until(
    'the chat frame is there',
    async () => {
      for (const f of page.frames()) {
        const id = await (await f.frameElement().catch(() => null))?.getAttribute('id');
        if (id === 'active-frame' || id === 'pending-frame') return f;
      }
      return undefined;
    },
    60_000,
  );
  const shownAt = await (
    await frame.waitForFunction(
      ({ n, text }) => {
        const turns = globalThis.document.querySelectorAll('.turn');
        return turns.length >= n && (turns[n - 1]?.querySelector('.answer')?.textContent ?? '').includes(text) && Date.now();
      },
      { n: RELOAD_TURNS, text: `That is answer ${RELOAD_TURNS}.` },
      { polling: 'raf', timeout: 120_000 },
    )
  ).jsonValue();
  // The chat marks when its saved copy, then the sidecar's transcript, was first on screen
  // (webview/main.ts), with the turns it showed; the sidecar's comes after its loadSession.
  await frame.waitForFunction(() => globalThis.performance.getEntriesByName('tandem-chat-sidecar', 'mark').length > 0, null, { timeout: 120_000 });
  const { chatPage, saved, confirmed } = await frame.evaluate(() => {
    const perf = globalThis.performance;
    const mark = (name) => {
      const m = perf.getEntriesByName(name, 'mark')[0];
      return m && { at: perf.timeOrigin + m.startTime, turns: m.detail?.turns };
    };
    return { chatPage: perf.timeOrigin, saved: mark('tandem-chat-saved'), confirmed: mark('tandem-chat-sidecar') };
  });
  const activated = activatedAfter(start);
  const ms = (t) => (t === undefined ? '?' : Math.round(t - start));
  console.log(
    `reload: the first turn showed ${ms(saved?.at)} ms after Reload Window (from the webview's saved copy, ${saved?.turns ?? 0} turns), ` +
      `the ${RELOAD_TURNS}th turn ${ms(shownAt)} ms, the sidecar's transcript was in place at ${ms(confirmed.at)} ms ` +
      `(the workbench was up by ${ms(workbench)} ms; Tandem was activated at ${ms(activated)} ms; ` +
      `the chat's page began loading at ${ms(chatPage)} ms)`,
  );
  assert.equal(saved?.turns, RELOAD_TURNS, "every turn came back from the webview's saved copy first");
  assert.ok(saved.at <= confirmed.at, "the saved copy showed before the sidecar's transcript");
  assert.equal(confirmed.turns, RELOAD_TURNS, "the sidecar's transcript has every turn, once");

  // Every turn, in order, each with its own answer.
  const prompts = (await chat().locator('.turn .user').allTextContents()).map((t) => t.trim());
  assert.deepEqual(prompts, Array.from({ length: RELOAD_TURNS }, (_, i) => reloadPrompt(i + 1)));
  const answers = await chat().locator('.turn').evaluateAll((turns) => turns.map((t) => t.querySelector('.answer')?.textContent ?? ''));
  answers.forEach((a, i) => assert.match(a, new RegExp(`That is answer ${i + 1}\\.`), `turn ${i + 1}'s answer`));
  assert.equal(await chat().locator('.turn .tool').count(), RELOAD_READS, 'every read_file card is back');
  assert.equal(await chat().locator('.log').getAttribute('data-source'), 'sidecar', "what stays on screen is the sidecar's transcript");
  await shot('40-reloaded-30-turns');
});

// A window of two folders, opened from a .code-workspace file in the same page: the first is the
// run's workspace (the primary root), the second a folder beside it (an additional root).
step('a multi-root window: an @ mention of a second folder’s file reaches the model, and a command writes there, recorded', { replies: 2 }, async () => {
  const second = secondRoot();
  const marker = "marker 5b1e: the second folder's util";
  mkdirSync(join(second, 'lib'), { recursive: true });
  writeFileSync(join(second, 'lib', 'util.txt'), `${marker}\n`);
  const file = join(run, 'multi.code-workspace');
  writeFileSync(file, JSON.stringify({ folders: [{ path: workspace }, { path: second }], settings: {} }, null, 2));

  // The chat's unsaved buffer (notes.txt) may ask before the page goes: leave anyway.
  const leave = (dialog) => (dialog.type() === 'beforeunload' ? dialog.accept() : dialog.dismiss()).catch(() => undefined);
  page.on('dialog', leave);
  try {
    await page.goto(`${new URL(page.url()).origin}/?workspace=${encodeURIComponent(file)}`);
    await page.waitForSelector('.monaco-workbench .part.activitybar', { timeout: 60_000 });
  } finally {
    page.off('dialog', leave);
  }
  await page.locator('.activitybar .action-item a[aria-label^="Tandem"]').click();
  await chat().locator('textarea.prompt').waitFor({ timeout: 60_000 });
  await until('the model list arrived', async () => (await chat().locator('select.model option').count()) === 2);
  await viewAction('New Chat').click();
  await until('the chat is empty', async () => (await chat().locator('.turn').count()) === 0);

  // The @ menu names the file by its folder: the second one's name first.
  const prompt = chat().locator('textarea.prompt');
  await prompt.click();
  await prompt.pressSequentially('Where is the helper? @util');
  // VS Code's file search may find nothing yet in a window that just opened: the menu's query is
  // asked again (its last letter typed anew) until it lists the file, a bounded poll.
  const mention = chat().locator('.mentions .mention', { hasText: 'second-root/lib/util.txt' }).first();
  for (const deadline = Date.now() + 60_000; ; ) {
    try {
      await mention.waitFor({ timeout: 5_000 });
      break;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await prompt.press('Backspace');
      await prompt.pressSequentially('l');
    }
  }
  await shot('41-multi-root-mention');
  await prompt.press('Enter');
  assert.equal(await prompt.inputValue(), 'Where is the helper? @second-root/lib/util.txt ');
  await prompt.press('Enter');

  // The model was sent the file's text, read in the second folder (the mock asks for the command
  // only if the request held the marker, scenario.json).
  const approval = lastTurn().locator('.approval-command');
  await approval.waitFor({ timeout: 60_000 });
  const asked = (await mockRequests()).filter((r) => r.path.endsWith('/chat/completions')).at(-1);
  const text = asked.body.messages.map((m) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content))).join('\n');
  assert.match(text, /<context path="[^"]*\/second-root\/lib\/util\.txt">/, text);
  assert.ok(text.includes(marker), `the marker in:\n${text}`);

  // The command (tee: it asks) writes in the second folder by its absolute path, run in the
  // first; approved, it runs.
  assert.match(await approval.locator('.command').textContent(), /tee \/.*\/second-root\/lib\/made-there\.txt/);
  assert.equal(await approval.locator('.cwd code').textContent(), realpathSync(workspace));
  await approval.getByRole('button', { name: /^Run command / }).click();
  await turnDone();
  assert.equal(readFileSync(join(second, 'lib', 'made-there.txt'), 'utf8'), 'written by a command in the second folder\n');
  assert.match(await lastTurn().locator('.answer').last().textContent(), /Wrote made-there\.txt in the second folder/);

  // The command's card and the turn's changes list it.
  const rows = lastTurn().locator('.tool .files-changed li');
  await until('the card lists one file', async () => (await rows.count()) === 1);
  assert.match((await rows.first().textContent()).replace(/\s+/g, ' '), /made-there\.txt created/);
  const changes = (await lastTurn().locator('.changes').textContent()).replace(/\s+/g, ' ');
  assert.match(changes, /Changed 1 file: .*made-there\.txt/);
  await shot('42-multi-root-command-wrote-there');

  // Review Changes shows it, created, with what the command wrote.
  await lastTurn().locator('button.review-changes').click();
  await page.locator('.tabs-container .tab', { hasText: 'Tandem: changes of turn' }).first().waitFor({ timeout: 20_000 });
  await until('its diff is shown', async () => (await diffEditors().count()) === 1, 20_000);
  await until('what the command wrote is on the right', async () => (await shown(diffEditors().first().locator('.editor.modified'))).includes('written by a command in the second folder'));
  await shot('43-multi-root-changes-reviewed');
});

runSteps();
