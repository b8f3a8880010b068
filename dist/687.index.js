export const id = 687;
export const ids = [687,240];
export const modules = {

/***/ 84687:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {


// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  loadPromptfooConfig: () => (/* binding */ loadPromptfooConfig)
});

// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(73024);
// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
var external_node_path_default = /*#__PURE__*/__webpack_require__.n(external_node_path_);
// EXTERNAL MODULE: ./node_modules/yaml/dist/index.js
var dist = __webpack_require__(38815);
// EXTERNAL MODULE: ./src/errors.ts
var errors = __webpack_require__(83916);
// EXTERNAL MODULE: ./src/util/hash.ts
var hash = __webpack_require__(95138);
// EXTERNAL MODULE: ./src/config/expected.ts
var expected = __webpack_require__(65180);
// EXTERNAL MODULE: ./src/config/fingerprint.ts
var fingerprint = __webpack_require__(84974);
// EXTERNAL MODULE: ./src/config/judged.ts
var judged = __webpack_require__(25165);
// EXTERNAL MODULE: ./src/config/schema.ts
var schema = __webpack_require__(90131);
// EXTERNAL MODULE: ./src/config/conversation.ts
var conversation = __webpack_require__(53307);
;// CONCATENATED MODULE: ./src/config/promptfoo/conversation.ts
/**
 * promptfoo's conversations, as promptfoo 0.121.20 has them:
 *
 * - `_conversation` in a prompt: the tests that share a provider, a prompt and
 *   `metadata.conversationId` (none is one id too) form one conversation, run
 *   in their order; each sees the earlier ones as `{prompt, input, output}`
 *   entries. Here a case is marked with its conversation's key and its prompt
 *   template; the runner renders it when the tests before it have answered
 *   (run/promptfoo-conversation.ts).
 * - `promptfoo:simulated-user` as a test's provider: a model plays the user
 *   from `instructions` (rendered with the vars) for up to `maxTurns` rounds,
 *   the provider under test answering each with the prompt as a system
 *   message before the history; the test's checks grade the transcript.
 *   promptfoo asks its remote service to play the user; evalgate asks the judge.
 */





/** Whether a prompt reads `_conversation` (in a `{{ }}` or `{% %}` tag), which makes its tests a conversation. */
function usesConversation(raw) {
    return /\{[{%][^}]*\b_conversation\b/.test(raw);
}
/** The key of a `_conversation`: promptfoo's provider, prompt and `metadata.conversationId`. */
function conversationKey(provider, prompt, metadata) {
    return JSON.stringify([provider, prompt, metadata?.conversationId ?? null]);
}
const SIMULATED_USER = 'promptfoo:simulated-user';
/** promptfoo's default */
const DEFAULT_MAX_TURNS = 10;
/** The simulated user's settings evalgate honours; any other is refused. */
const USER_KEYS = new Set(['instructions', 'maxTurns', 'initialMessages']);
/**
 * A test's `provider` (or defaultTest's) as a simulated user; anything but
 * promptfoo's simulated user is refused. `prompt` is the prompt text the
 * provider under test is sent as a system message.
 */
function simulatedUser(provider, vars, templates, judge, where, file, baseDir) {
    const { id, config = {} } = typeof provider === 'string' ? { id: provider, config: {} } : provider;
    if (id !== SIMULATED_USER)
        throw new errors/* ConfigError */.xL(`${where}.provider: a test's own provider "${id}" is not supported by evalgate; only ${SIMULATED_USER} (or list it under providers)`, file);
    for (const key of Object.keys(config)) {
        if (!USER_KEYS.has(key))
            throw new errors/* ConfigError */.xL(`${where}.provider.config.${key}: not supported by evalgate's simulated user; it honours instructions, maxTurns and initialMessages`, file);
    }
    const render = (text, at) => {
        try {
            return templates.render(text, vars);
        }
        catch (err) {
            throw new errors/* ConfigError */.xL(`${where}${at}: cannot render ${JSON.stringify(text.slice(0, 80))}: ${(0,errors/* errorMessage */.gJ)(err)}`, file);
        }
    };
    const instructions = render(typeof config.instructions === 'string' && config.instructions !== '' ? config.instructions : '{{instructions}}', '.provider.config.instructions');
    if (instructions.trim() === '')
        throw new errors/* ConfigError */.xL(`${where}: the simulated user has no instructions: set vars.instructions or provider.config.instructions`, file);
    const maxTurns = config.maxTurns ?? DEFAULT_MAX_TURNS;
    if (typeof maxTurns !== 'number' || !Number.isInteger(maxTurns) || maxTurns < 1 || maxTurns > 50)
        throw new errors/* ConfigError */.xL(`${where}.provider.config.maxTurns: maxTurns must be between 1 and 50`, file);
    const initialMessages = openingOf(vars.initialMessages ?? config.initialMessages, where, file, baseDir).map((m) => ({
        role: m.role,
        content: render(m.content, '.initialMessages')
    }));
    let user;
    try {
        user = (0,conversation/* simulatedUserProvider */.NV)(undefined, judge);
    }
    catch {
        throw new errors/* ConfigError */.xL(`${where}: ${SIMULATED_USER} is played by evalgate's judge: give the \`evalgate:\` block a \`judge:\``, file);
    }
    // promptfoo asks for up to maxTurns user messages, after answering an opening that ends with the user's
    const answered = initialMessages.at(-1)?.role === 'user' ? 1 : 0;
    return { instructions, maxTurns: maxTurns + answered, initialMessages, stop: conversation/* DEFAULT_STOP */.xN, provider: user };
}
/** promptfoo's `initialMessages`: a list, a JSON list in a string, or a `file://` JSON or YAML file of one. */
function openingOf(value, where, file, baseDir) {
    let list = value;
    if (typeof value === 'string') {
        const text = value.trim();
        if (text === '')
            return [];
        try {
            if (text.startsWith('file://')) {
                const name = external_node_path_default().resolve(baseDir, text.slice('file://'.length));
                list = /\.ya?ml$/i.test(name) ? (0,dist/* parse */.qg)((0,external_node_fs_.readFileSync)(name, 'utf8')) : JSON.parse((0,external_node_fs_.readFileSync)(name, 'utf8'));
            }
            else
                list = JSON.parse(text);
        }
        catch (err) {
            throw new errors/* ConfigError */.xL(`${where}: initialMessages ${JSON.stringify(text.slice(0, 80))} could not be read: ${(0,errors/* errorMessage */.gJ)(err)}`, file);
        }
    }
    if (list === undefined || list === null)
        return [];
    const bad = () => new errors/* ConfigError */.xL(`${where}: initialMessages is a list of {role: user | assistant, content: "…"}`, file);
    if (!Array.isArray(list))
        throw bad();
    return list.map((m) => {
        const { role, content } = (m ?? {});
        if ((role !== 'user' && role !== 'assistant') || typeof content !== 'string')
            throw bad();
        return { role, content };
    });
}

// EXTERNAL MODULE: ./src/config/promptfoo/index.ts
var promptfoo = __webpack_require__(42823);
;// CONCATENATED MODULE: ./src/config/promptfoo/prompts.ts
/**
 * promptfoo `prompts:` — a string, a list of strings and `{label, raw}`
 * objects, or a map of prompt → label; `file://` prompts read from .txt/.md
 * (split at lines of `---`), .json/.yaml (one prompt each: the content as
 * JSON) and .jsonl (one prompt per line). Each prompt has the label that is
 * part of its cases' keys.
 */




/**
 * promptfoo's reading of a `prompts:` filter on a provider or a test: a
 * reference names a prompt by its label or id, `ref*` any whose label or id
 * starts with `ref`, and `ref` also the prompts `ref: 1`, `ref: 2`… of one file.
 */
function promptAllowed(prompt, refs) {
    if (refs === undefined)
        return true;
    return refs.some((ref) => {
        const names = [prompt.label, ...(prompt.id !== undefined ? [prompt.id] : [])];
        if (names.includes(ref))
            return true;
        if (ref.endsWith('*') && names.some((n) => n.startsWith(ref.slice(0, -1))))
            return true;
        return names.some((n) => n.startsWith(`${ref}:`));
    });
}
const FILE = 'file://';
/** promptfoo's prompt separator in text files */
const DELIMITER = '---';
function readPrompts(prompts, baseDir, where) {
    const entries = typeof prompts === 'string'
        ? [{ raw: prompts }]
        : Array.isArray(prompts)
            ? prompts.map((p) => (typeof p === 'string' ? { raw: p } : { raw: p.raw ?? p.id ?? '', label: p.label, ...(p.id !== undefined ? { id: p.id } : {}) }))
            : Object.entries(prompts).map(([raw, label]) => ({ raw, label }));
    return entries.flatMap((p, i) => {
        const at = `${where} at prompts[${i}]`;
        if (p.raw === '')
            throw new errors/* ConfigError */.xL(`${at}: a prompt object needs \`raw\` (the prompt text or file://path)`, where);
        const id = p.id !== undefined ? { id: p.id } : {};
        if (!p.raw.startsWith(FILE))
            return [{ raw: p.raw, label: p.label ?? p.raw, ...id }];
        const found = readPromptFile(external_node_path_default().resolve(baseDir, p.raw.slice(FILE.length)), at);
        const rel = external_node_path_default().relative(baseDir, external_node_path_default().resolve(baseDir, p.raw.slice(FILE.length)));
        return found.map((raw, k) => ({
            raw,
            ...id,
            label: p.label !== undefined ? (found.length > 1 ? `${p.label}: ${k + 1}` : p.label) : found.length > 1 ? `${rel}: ${k + 1}` : rel
        }));
    });
}
function readPromptFile(file, at) {
    let text;
    try {
        text = (0,external_node_fs_.readFileSync)(file, 'utf8');
    }
    catch (err) {
        throw new errors/* ConfigError */.xL(`${at}: cannot read the prompt file ${file}: ${(0,errors/* errorMessage */.gJ)(err)}`, file);
    }
    const ext = external_node_path_default().extname(file).toLowerCase();
    let prompts;
    if (ext === '.txt' || ext === '.md' || ext === '')
        prompts = splitText(text);
    else if (ext === '.json')
        prompts = [jsonText(() => JSON.parse(text), text)];
    else if (ext === '.yaml' || ext === '.yml')
        prompts = [jsonText(() => (0,dist/* parse */.qg)(text), text)];
    else if (ext === '.jsonl')
        prompts = text.split(/\r?\n/).filter((line) => line.length > 0);
    else
        throw new errors/* ConfigError */.xL(`${at}: prompt files of type "${ext}" are not supported by evalgate; use .txt, .md, .json, .yaml or .jsonl`, file);
    if (prompts.length === 0)
        throw new errors/* ConfigError */.xL(`${at}: ${file} has no prompt`, file);
    return prompts;
}
function splitText(text) {
    const prompts = [];
    let lines = [];
    const flush = () => {
        const raw = lines.join('\n').trim();
        if (raw)
            prompts.push(raw);
        lines = [];
    };
    for (const line of text.split(/\r?\n/)) {
        if (line.trim() === DELIMITER)
            flush();
        else
            lines.push(line);
    }
    flush();
    return prompts;
}
/** A structured prompt file as the JSON text promptfoo sends; unparsable content is sent as it is. */
function jsonText(parse, text) {
    try {
        return JSON.stringify(parse());
    }
    catch {
        return text;
    }
}

// EXTERNAL MODULE: ./src/llm/nunjucks.ts
var nunjucks = __webpack_require__(79240);
// EXTERNAL MODULE: ./node_modules/csv-parse/lib/sync.js + 9 modules
var sync = __webpack_require__(25175);
// EXTERNAL MODULE: ./node_modules/tinyglobby/dist/index.mjs + 1 modules
var tinyglobby_dist = __webpack_require__(73382);
// EXTERNAL MODULE: ./src/config/parse.ts + 1 modules
var parse = __webpack_require__(18639);
// EXTERNAL MODULE: ./src/config/promptfoo/schema.ts
var promptfoo_schema = __webpack_require__(84140);
;// CONCATENATED MODULE: ./src/config/promptfoo/tests.ts
/**
 * promptfoo `tests:` — inline tests, and `file://` files of tests in YAML,
 * JSON, JSONL or CSV (a glob in place of a name reads every file it matches).
 * A CSV row is a test: its columns are vars, `__expected…` columns are
 * assertions in promptfoo's `type: value` shorthand, `__description`,
 * `__metric`, `__threshold`, `__prefix` and `__suffix` set what they name.
 */







const tests_FILE = 'file://';
function readTests(tests, config, baseDir) {
    const list = tests === undefined ? [] : typeof tests === 'string' ? [tests] : tests;
    return list.flatMap((entry, i) => {
        if (typeof entry !== 'string')
            return [located(entry, config, ['tests', i], baseDir)];
        return testFiles(entry, baseDir, `${config.file} at tests${typeof tests === 'string' ? '' : `[${i}]`}`).flatMap((file) => readTestFile(file));
    });
}
function located(test, source, at, dir) {
    const line = source.lineOf(at);
    const where = `${source.file}${line ? `:${line}` : ''} at ${at
        .map((p) => (typeof p === 'number' ? `[${p}]` : p))
        .join('.')
        .replace(/\.\[/g, '[')}`;
    return { test, where, file: source.file, dir };
}
function testFiles(ref, baseDir, where) {
    const name = ref.startsWith(tests_FILE) ? ref.slice(tests_FILE.length) : ref;
    if (!(0,tinyglobby_dist.isDynamicPattern)(name))
        return [external_node_path_default().resolve(baseDir, name)];
    const found = (0,tinyglobby_dist.globSync)(name, { cwd: baseDir, absolute: true, onlyFiles: true }).sort();
    if (found.length === 0)
        throw new errors/* ConfigError */.xL(`${where}: "${ref}" matches no file (relative to ${baseDir})`);
    return found;
}
function readTestFile(file) {
    let text;
    try {
        text = (0,external_node_fs_.readFileSync)(file, 'utf8').replace(/^\uFEFF/, '');
    }
    catch (err) {
        throw new errors/* ConfigError */.xL(`${file}: cannot read the tests file: ${(0,errors/* errorMessage */.gJ)(err)}`, file);
    }
    const ext = external_node_path_default().extname(file).toLowerCase();
    const dir = external_node_path_default().dirname(file);
    if (ext === '.csv')
        return csvTests(text, file);
    let source;
    if (ext === '.jsonl')
        source = (0,parse/* parseJsonl */.wI)(text, file);
    else if (ext === '.json' || ext === '.yaml' || ext === '.yml')
        source = (0,parse/* parseYaml */.hN)(text, file);
    else
        throw new errors/* ConfigError */.xL(`${file}: tests files of type "${ext || '(none)'}" are not supported by evalgate; use .yaml, .yml, .json, .jsonl or .csv`, file);
    const value = source.value;
    const rows = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
    return rows.map((row, i) => {
        const at = Array.isArray(value) ? [i] : [];
        return located((0,parse/* validate */.tf)(promptfoo_schema/* promptfooTestSchema */.KT, { ...source, value: row }, at, 'test', true), source, at, dir);
    });
}
function csvTests(text, file) {
    let rows;
    try {
        rows = (0,sync/* parse */.qg)(text, { columns: true, bom: true, skip_empty_lines: true });
    }
    catch {
        try {
            // promptfoo retries with relaxed quotes: a stray quote inside a field is text
            rows = (0,sync/* parse */.qg)(text, { columns: true, bom: true, skip_empty_lines: true, relax_quotes: true });
        }
        catch (err) {
            throw new errors/* ConfigError */.xL(`${file}: not valid CSV: ${(0,errors/* errorMessage */.gJ)(err)}`, file);
        }
    }
    const dir = external_node_path_default().dirname(file);
    // the header is line 1; a row's line is only exact without multi-line fields
    return rows.map((row, i) => ({ test: testFromRow(row, i, `${file} row ${i + 1}`), where: `${file}:${i + 2} (row ${i + 1})`, file, dir }));
}
function testFromRow(row, index, where) {
    const vars = {};
    const assert = [];
    const options = {};
    let description;
    let metric;
    let threshold;
    const configs = [];
    for (const [rawKey, value] of Object.entries(row)) {
        const key = rawKey.trim();
        if (key.startsWith('__expected')) {
            if (value.trim() !== '')
                assert.push(assertionFromString(value.trim(), `${where}, column ${key}`));
        }
        else if (key === '__description')
            description = value;
        else if (key === '__metric')
            metric = value;
        else if (key === '__threshold')
            threshold = finiteNumber(value);
        else if (key === '__prefix')
            options.prefix = value;
        else if (key === '__suffix')
            options.suffix = value;
        else if (key.startsWith('__metadata'))
            continue;
        else if (key.startsWith('__config:'))
            configs.push([key, value]);
        else if (key.startsWith('__'))
            throw new errors/* ConfigError */.xL(`${where}: the column "${key}" is not supported by evalgate; supported: __expected…, __description, __metric, __threshold, __prefix, __suffix, __metadata:…, __config:__expected<N>:threshold`);
        else
            vars[key] = value;
    }
    // `__config:__expected2:threshold` sets the threshold of the second `__expected` assertion
    for (const [key, value] of configs) {
        const m = /^__config:__expected(\d*):threshold$/.exec(key);
        const n = m ? (m[1] === '' ? 0 : Number(m[1]) - 1) : -1;
        const number = finiteNumber(value);
        if (!m || n < 0 || number === undefined)
            throw new errors/* ConfigError */.xL(`${where}: column "${key}" = ${JSON.stringify(value)}: write __config:__expected<N>:threshold with a number`);
        if (assert[n])
            assert[n].threshold = number;
    }
    if (metric)
        for (const a of assert)
            a.metric = metric;
    const test = { vars, assert, options, description: description || `Row #${index + 1}` };
    if (threshold !== undefined)
        test.threshold = threshold;
    return test;
}
function finiteNumber(text) {
    const t = text.trim();
    return /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(t) ? Number(t) : undefined;
}
/** promptfoo's assertion types, which its `type: value` shorthand recognises. */
const SHORTHAND_TYPES = [
    'agent-rubric',
    'answer-relevance',
    'bleu',
    'classifier',
    'contains',
    'contains-all',
    'contains-any',
    'contains-html',
    'contains-json',
    'contains-sql',
    'contains-xml',
    'context-faithfulness',
    'context-recall',
    'context-relevance',
    'conversation-relevance',
    'cost',
    'equals',
    'factuality',
    'finish-reason',
    'g-eval',
    'gleu',
    'guardrails',
    'icontains',
    'icontains-all',
    'icontains-any',
    'is-html',
    'is-json',
    'is-refusal',
    'is-sql',
    'is-valid-function-call',
    'is-valid-openai-function-call',
    'is-valid-openai-tools-call',
    'is-xml',
    'javascript',
    'latency',
    'levenshtein',
    'llm-rubric',
    'pi',
    'meteor',
    'model-graded-closedqa',
    'model-graded-factuality',
    'moderation',
    'perplexity',
    'perplexity-score',
    'python',
    'regex',
    'rouge-n',
    'ruby',
    'similar',
    'similar:cosine',
    'similar:dot',
    'similar:euclidean',
    'starts-with',
    'tool-call-f1',
    'skill-used',
    'trajectory:goal-success',
    'trajectory:tool-args-match',
    'trajectory:step-count',
    'trajectory:tool-sequence',
    'trajectory:tool-used',
    'trace-error-spans',
    'trace-span-count',
    'trace-span-duration',
    'search-rubric',
    'webhook',
    'word-count'
];
const SHORTHAND = new RegExp(`^(not-)?(${SHORTHAND_TYPES.map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?:\\((\\d+(?:\\.\\d+)?)\\))?(?::([\\s\\S]*))?$`);
/** types whose shorthand carries a threshold, 0.75 unless written as `type(0.9): value` */
const THRESHOLD_TYPES = new Set([
    'answer-relevance',
    'classifier',
    'context-faithfulness',
    'context-recall',
    'context-relevance',
    'cost',
    'latency',
    'levenshtein',
    'perplexity-score',
    'perplexity',
    'rouge-n',
    'similar',
    'starts-with'
]);
const LIST_TYPES = new Set(['contains-all', 'contains-any', 'icontains-all', 'icontains-any']);
/**
 * One `__expected` cell as an assertion: `javascript:`/`fn:`/`eval:` code or a
 * `file://check.js`, `grade:`/`llm-rubric:` rubrics, `[not-]type[(threshold)][: value]`,
 * and anything else as `equals`.
 */
function assertionFromString(expected, where) {
    const code = /^(javascript|fn|eval):/.exec(expected);
    if (code)
        return { type: 'javascript', value: expected.slice(code[0].length).trim() };
    if (expected.startsWith(tests_FILE) && /\.(m|c)?[jt]s(:|$)/.test(expected))
        return { type: 'javascript', value: expected };
    if (expected.startsWith('grade:'))
        return { type: 'llm-rubric', value: expected.slice('grade:'.length) };
    if (expected.startsWith('llm-rubric:'))
        return { type: 'llm-rubric', value: expected.slice('llm-rubric:'.length) };
    if (expected.startsWith('python:'))
        return { type: 'python', value: expected.slice('python:'.length).trim() };
    if (expected.startsWith(tests_FILE) && /\.py(:|$)/.test(expected))
        return { type: 'python', value: expected };
    const m = SHORTHAND.exec(expected);
    if (!m)
        return { type: 'equals', value: expected };
    const [, not, base, thresholdText, value] = m;
    const type = `${not ?? ''}${base}`;
    if (LIST_TYPES.has(base))
        return { type, value: value ? splitTerms(value, where) : value };
    if (base === 'contains-json' || base === 'is-json')
        return value === undefined ? { type } : { type, value };
    const trimmed = value?.trim();
    const out = trimmed === undefined ? { type } : { type, value: trimmed };
    if (THRESHOLD_TYPES.has(base))
        out.threshold = thresholdText !== undefined ? Number(thresholdText) : base === 'similar' ? 0.8 : 0.75;
    return out;
}
/** A comma-separated list of terms; a term in double quotes may hold commas (`""` or `\"` is a quote inside it). */
function splitTerms(text, where) {
    const terms = [];
    let i = 0;
    while (i < text.length) {
        while (i < text.length && (text[i] === ',' || /\s/.test(text[i])))
            i++;
        if (i >= text.length)
            break;
        if (text[i] === '"') {
            let term = '';
            let closed = false;
            i++;
            while (i < text.length) {
                const ch = text[i];
                if ((ch === '\\' && (text[i + 1] === '"' || text[i + 1] === '\\')) || (ch === '"' && text[i + 1] === '"')) {
                    term += text[i + 1];
                    i += 2;
                }
                else if (ch === '"') {
                    closed = true;
                    i++;
                    break;
                }
                else {
                    term += ch;
                    i++;
                }
            }
            if (!closed)
                throw new errors/* ConfigError */.xL(`${where}: a quoted term is not closed in ${JSON.stringify(text)}`);
            while (i < text.length && /\s/.test(text[i]))
                i++;
            if (i < text.length && text[i] !== ',')
                throw new errors/* ConfigError */.xL(`${where}: expected a comma after the quoted term in ${JSON.stringify(text)}`);
            terms.push(term);
        }
        else {
            const end = text.indexOf(',', i);
            terms.push(text.slice(i, end < 0 ? text.length : end).trim());
            i = end < 0 ? text.length : end;
        }
    }
    return terms;
}

;// CONCATENATED MODULE: ./src/config/promptfoo/cases.ts
/**
 * A promptfoo config's tests × prompts × providers as evalgate cases,
 * loaded on first use (see index.ts).
 */














/** `settings` may replace evalgate settings (the action's trusted ones) before the cases' fingerprints are made. */
function loadPromptfooConfig(located, baseDir, validateAssertion, settings = (c) => c, judgeDir) {
    const file = located.file;
    const pf = (0,promptfoo/* readPromptfooConfig */.nK)(located);
    const prompts = readPrompts(pf.prompts, baseDir, file);
    let tests = readTests(pf.tests, located, baseDir);
    // promptfoo runs a config without tests once, with no vars and no assertions
    if (tests.length === 0)
        tests = [{ test: {}, where: `${file} at tests`, file, dir: baseDir }];
    // the settings first: a simulated user is played by the judge they name
    const config = settings((0,promptfoo/* settingsOf */.f5)(located, pf));
    // what the assertions may rely on: the trace assertions need the receiver (a promptfoo config's tools are its providers')
    const scope = { tracing: (0,schema/* tracingOf */.KO)(config.tracing) !== undefined };
    const builder = new CaseBuilder(new nunjucks.Templates(pf.env), (a) => validateAssertion(a, scope), pf.defaultTest, baseDir, config.judge, pf.env);
    const providers = (0,promptfoo/* providersOf */.Ou)(pf);
    tests.forEach((t, i) => builder.addTest(t, i, prompts, providers));
    return { config, ...builder.finish(config, judgeDir) };
}
/** A label as it appears in a key: one line, and long texts cut and told apart by a hash. */
function keyPart(label) {
    const line = label.replace(/\s+/g, ' ').trim();
    return line.length <= 80 ? line : `${line.slice(0, 60)}… ${(0,hash/* contentHash */.A)(label, 6)}`;
}
/**
 * promptfoo's var expansion: a var whose value is a list of strings makes one
 * test per element (every combination, for several); a list of anything else stays one value.
 */
function varCombinations(vars) {
    let combos = [{}];
    for (const [key, value] of Object.entries(vars)) {
        const values = Array.isArray(value) && typeof value[0] === 'string' ? value : [value];
        combos = combos.flatMap((c) => values.map((v) => ({ ...c, [key]: v })));
    }
    return combos;
}
const cases_FILE = 'file://';
/** checks that embed texts: an embedding provider of their own would change their verdicts */
const EMBEDDING_TYPES = new Set(['similar', 'answer-relevance']);
const JS_FILE = /\.(m|c)?js$/;
class CaseBuilder {
    templates;
    validateAssertion;
    defaultTest;
    baseDir;
    judge;
    env;
    keys = new Map();
    pending = [];
    constructor(templates, validateAssertion, defaultTest, baseDir, judge, 
    /** the config's `env:`, which a prompt rendered at run time (`_conversation`) reads too */
    env) {
        this.templates = templates;
        this.validateAssertion = validateAssertion;
        this.defaultTest = defaultTest;
        this.baseDir = baseDir;
        this.judge = judge;
        this.env = env;
    }
    addTest(t, index, prompts, providers) {
        const d = this.defaultTest;
        const test = t.test;
        const options = { ...d?.options, ...test.options };
        const rawAsserts = [...(options.disableDefaultAsserts ? [] : (d?.assert ?? [])), ...(test.assert ?? [])];
        const threshold = test.threshold ?? d?.threshold;
        const vars = { ...d?.vars, ...test.vars };
        const metadata = d?.metadata || test.metadata ? { ...d?.metadata, ...test.metadata } : undefined;
        const combos = options.disableVarExpansion ? [vars] : varCombinations(vars);
        const testKey = keyPart(test.description ?? `test ${index + 1}`);
        const userProvider = test.provider ?? d?.provider;
        combos.forEach((combo, k) => {
            const resolved = this.loadFileVars(combo, t);
            const grading = this.grading(rawAsserts, resolved, t, threshold, options.transform, { provider: options.provider, rubricPrompt: options.rubricPrompt });
            const testPart = combos.length > 1 ? `${testKey} [${k + 1}]` : testKey;
            const user = userProvider === undefined ? undefined : simulatedUser(userProvider, resolved, this.templates, this.judge, t.where, t.file, this.baseDir);
            providers.forEach((provider, p) => {
                for (const [promptIndex, prompt] of prompts.entries()) {
                    // promptfoo runs a provider with the prompts it names, a test with those it names
                    if (!promptAllowed(prompt, provider.prompts) || !promptAllowed(prompt, test.prompts))
                        continue;
                    const template = `${options.prefix ?? ''}${prompt.raw}${options.suffix ?? ''}`;
                    // a prompt that reads `_conversation` is rendered again when it runs, with the conversation so far
                    const conversation = !user && usesConversation(template);
                    let input;
                    try {
                        input = user
                            ? this.templates.render(template, resolved)
                            : this.templates.renderPrompt(template, conversation ? { ...resolved, _conversation: [] } : resolved);
                    }
                    catch (err) {
                        throw new errors/* ConfigError */.xL(`${t.where}: cannot render the prompt "${keyPart(prompt.label)}" with this test's vars: ${(0,errors/* errorMessage */.gJ)(err)}`, t.file);
                    }
                    const key = [testPart, keyPart(prompt.label), keyPart(provider.label ?? provider.id)].join(' · ');
                    const seen = this.keys.get(key) ?? 0;
                    this.keys.set(key, seen + 1);
                    const id = seen === 0 ? key : `${key} ~${seen + 1}`;
                    const promptfoo = { provider: p, ...grading.promptfoo };
                    if (test.description !== undefined)
                        promptfoo.description = test.description;
                    // disableConversationVar: its own _conversation stays empty, but its answer joins the conversation (as in promptfoo)
                    if (conversation)
                        promptfoo.conversation = {
                            key: conversationKey(p, promptIndex, metadata),
                            template,
                            ...(this.env ? { env: this.env } : {}),
                            ...(options.disableConversationVar ? { blind: true } : {})
                        };
                    const line = /:(\d+)/.exec(t.where)?.[1];
                    this.pending.push({
                        c: {
                            id,
                            name: id,
                            input,
                            tags: [],
                            assert: grading.assert,
                            expected: grading.assert.length ? grading.assert.map(expected/* describeAssertion */.O).join('\n') : undefined,
                            source: { file: external_node_path_default().relative(process.cwd(), t.file) || t.file, ...(line ? { line: Number(line) } : {}) },
                            index: this.pending.length,
                            vars: resolved,
                            ...(metadata !== undefined ? { metadata } : {}),
                            promptfoo,
                            // the agent is sent the prompt as a system message before the conversation so far
                            ...(user ? { simulate: { ...user, promptfoo: { system: input } } } : {})
                        }
                    });
                }
            });
        });
    }
    /**
     * Cases with fingerprints, which depend on the judge settings the config ends
     * up with. Besides input and assertions they cover how the test is graded
     * (threshold, sets, transforms), with transform files by relative path and content.
     */
    finish(config, judgeDir) {
        const fingerprints = new fingerprint/* Fingerprinter */.Up(this.baseDir, config.judge, judgeDir);
        const portable = (source) => (source.startsWith(cases_FILE) ? `${cases_FILE}${external_node_path_default().relative(this.baseDir, source.slice(cases_FILE.length))}` : source);
        // a `_conversation` turn depends on every turn before it: its fingerprint covers the one before's
        const lastOf = new Map();
        const cases = this.pending.map(({ c }) => {
            const { provider: _provider, description: _description, conversation, ...grading } = c.promptfoo;
            const graded = [
                ...c.assert.flatMap((a, i) => (a.transform === undefined ? [] : [{ type: 'transform', value: { of: i, source: portable(a.transform) } }])),
                ...(Object.keys(grading).length
                    ? [{ type: 'grading', value: { ...grading, ...(grading.transform !== undefined ? { transform: portable(grading.transform) } : {}) } }]
                    : []),
                ...(conversation ? [{ type: 'conversation', value: { ...conversation, after: lastOf.get(conversation.key) ?? null } }] : [])
            ];
            const assert = graded.length ? [...c.assert.map(({ transform: _t, ...a }) => a), ...graded] : c.assert;
            const fingerprint = fingerprints.ofCase(c.input, assert, c.metadata, undefined, c.simulate ? { simulate: c.simulate } : {});
            if (conversation)
                lastOf.set(conversation.key, fingerprint);
            return { ...c, fingerprint };
        });
        return { cases, gradingFiles: fingerprints.readFiles() };
    }
    /** `file://` vars read as promptfoo reads them: YAML as JSON text, anything else as its trimmed text. */
    loadFileVars(vars, t) {
        const out = {};
        for (const [name, value] of Object.entries(vars)) {
            if (typeof value !== 'string' || !value.startsWith(cases_FILE)) {
                // promptfoo drops one trailing newline of every string var
                out[name] = typeof value === 'string' ? value.replace(/\n$/, '') : value;
                continue;
            }
            const file = external_node_path_default().resolve(this.baseDir, value.slice(cases_FILE.length));
            if (/\.(m|c)?[jt]s$|\.py$/.test(file))
                throw new errors/* ConfigError */.xL(`${t.where}: vars.${name}: vars computed by scripts are not supported by evalgate; use a text, JSON or YAML file`, t.file);
            out[name] = readFileText(file, `${t.where}: vars.${name}`, (text) => (/\.ya?ml$/i.test(file) ? JSON.stringify((0,dist/* parse */.qg)(text)) : text.trim()));
        }
        return out;
    }
    grading(raw, vars, t, threshold, transform, grader) {
        const assert = [];
        const sets = [];
        raw.forEach((a, i) => {
            const at = `${t.where}.assert[${i}]`;
            if (a.type !== 'assert-set')
                return assert.push(this.assertion(a, vars, at, t, undefined, grader));
            if (!a.assert?.length)
                throw new errors/* ConfigError */.xL(`${at}: an assert-set needs \`assert\`, a list of assertions`, t.file);
            const set = sets.push({
                ...(a.threshold !== undefined ? { threshold: a.threshold } : {}),
                ...(a.weight !== undefined ? { weight: a.weight } : {}),
                ...(a.metric !== undefined ? { metric: this.render(a.metric, vars, `${at}.metric`, t) } : {})
            }) - 1;
            a.assert.forEach((child, j) => {
                if (child.type === 'assert-set')
                    throw new errors/* ConfigError */.xL(`${at}.assert[${j}]: assert-sets cannot be nested`, t.file);
                assert.push(this.assertion(child, vars, `${at}.assert[${j}]`, t, set, grader));
            });
        });
        const promptfoo = {};
        if (transform !== undefined)
            promptfoo.transform = this.transformSource(transform);
        if (threshold !== undefined)
            promptfoo.threshold = threshold;
        if (sets.length)
            promptfoo.sets = sets;
        return { assert, promptfoo };
    }
    assertion(a, vars, at, t, set, grader) {
        if (a.config !== undefined)
            throw new errors/* ConfigError */.xL(`${at}: assertion \`config\` is not supported by evalgate; remove it`, t.file);
        const out = { type: a.type };
        const isJavascript = a.type === 'javascript' || a.type === 'not-javascript';
        const isPython = a.type === 'python' || a.type === 'not-python';
        if (typeof a.value === 'string' && a.value.startsWith(cases_FILE)) {
            const ref = a.value.slice(cases_FILE.length);
            // a python check's file stays a reference, relative to the file that names it (`:function` kept)
            if (isPython)
                out.value = `${cases_FILE}${external_node_path_default().resolve(t.dir, ref)}`;
            else if (isJavascript) {
                if (!JS_FILE.test(ref))
                    throw new errors/* ConfigError */.xL(`${at}: ${a.value}: evalgate runs a check file's default export; name a .js/.mjs/.cjs file without ":function"`, t.file);
                out.file = external_node_path_default().resolve(t.dir, ref);
            }
            else {
                const file = external_node_path_default().resolve(t.dir, ref);
                out.value = readFileText(file, `${at}.value`, (text) => (/\.json$/i.test(file) ? JSON.parse(text) : /\.ya?ml$/i.test(file) ? (0,dist/* parse */.qg)(text) : text));
            }
        }
        else if (typeof a.value === 'string')
            out.value = this.render(a.value, vars, `${at}.value`, t);
        else if (Array.isArray(a.value))
            out.value = a.value.map((v, k) => (typeof v === 'string' ? this.render(v, vars, `${at}.value[${k}]`, t) : v));
        else if (a.value !== undefined)
            out.value = a.value;
        if (a.threshold !== undefined)
            out.threshold = a.threshold;
        if (a.weight !== undefined)
            out.weight = a.weight;
        if (a.metric !== undefined)
            out.metric = this.render(a.metric, vars, `${at}.metric`, t);
        if (a.transform !== undefined)
            out.transform = this.transformSource(a.transform);
        if (set !== undefined)
            out.set = set;
        // promptfoo's order for a model-graded check's grader: its own provider, else the test's options (merged over defaultTest's)
        if (judged/* MODEL_GRADED_TYPES */.e.has(a.type) || a.type === 'select-best' || a.type === 'similar') {
            const named = a.provider ?? grader.provider;
            const byUse = named !== undefined && typeof named === 'object' && !('id' in named) ? named : undefined;
            if (byUse?.embedding !== undefined && EMBEDDING_TYPES.has(a.type))
                throw new errors/* ConfigError */.xL(`${at}: ${a.type} with an embedding provider of its own is not supported by evalgate: embeddings come from the judge (evalgate.judge.embeddingModel); remove \`embedding\``, t.file);
            // promptfoo's {text, embedding}: the text grader grades, as there
            const provider = byUse ? byUse.text : named;
            const rubricPrompt = a.rubricPrompt ?? grader.rubricPrompt;
            if (a.type === 'similar') {
                if (a.provider !== undefined && !byUse)
                    throw new errors/* ConfigError */.xL(`${at}: similar with a \`provider\` of its own is not supported by evalgate: embeddings come from the judge (evalgate.judge.embeddingModel); remove \`provider\``, t.file);
            }
            else if (provider !== undefined)
                out.provider = typeof provider === 'string' ? provider : { id: provider.id, ...(provider.config ? { config: provider.config } : {}) };
            if (rubricPrompt !== undefined && a.type === 'llm-rubric')
                out.rubricPrompt = rubricPrompt;
        }
        const problem = this.validateAssertion(out);
        if (problem)
            throw new errors/* ConfigError */.xL(`${at}: ${problem}`, t.file);
        return out;
    }
    /** A `file://` transform names its module relative to the config; the check runs it by absolute path. */
    transformSource(source) {
        return source.startsWith(cases_FILE) ? `${cases_FILE}${external_node_path_default().resolve(this.baseDir, source.slice(cases_FILE.length))}` : source;
    }
    render(template, vars, at, t) {
        try {
            return this.templates.render(template, vars);
        }
        catch (err) {
            throw new errors/* ConfigError */.xL(`${at}: cannot render the template ${JSON.stringify(template.slice(0, 80))}: ${(0,errors/* errorMessage */.gJ)(err)}`, t.file);
        }
    }
}
function readFileText(file, at, read) {
    let text;
    try {
        text = (0,external_node_fs_.readFileSync)(file, 'utf8');
    }
    catch (err) {
        throw new errors/* ConfigError */.xL(`${at}: cannot read ${file}: ${(0,errors/* errorMessage */.gJ)(err)}`, file);
    }
    try {
        return read(text);
    }
    catch (err) {
        throw new errors/* ConfigError */.xL(`${at}: cannot parse ${file}: ${(0,errors/* errorMessage */.gJ)(err)}`, file);
    }
}


/***/ }),

/***/ 79240:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   Templates: () => (/* binding */ Templates)
/* harmony export */ });
/* harmony import */ var nunjucks__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(18115);
/* harmony import */ var nunjucks__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(nunjucks__WEBPACK_IMPORTED_MODULE_0__);
/**
 * Nunjucks templates as promptfoo renders them: prompts and assertion values
 * with the test's `vars`, no HTML escaping, an unknown variable renders empty,
 * a `load` filter that parses JSON, and `env` — here only the config's own
 * `env:` block, never the process environment (a template must not be able to
 * put the runner's secrets into a prompt).
 */

class Templates {
    env;
    constructor(configEnv = {}) {
        this.env = new (nunjucks__WEBPACK_IMPORTED_MODULE_0___default().Environment)(null, { autoescape: false, throwOnUndefined: false });
        this.env.addGlobal('env', configEnv);
        this.env.addFilter('load', (text) => JSON.parse(text));
    }
    /** One template; throws nunjucks' own error (the caller says where the template was). */
    render(template, vars) {
        // a lone "{{" or "{%" (code, JSON in prose) is text: promptfoo leaves such a template as it is
        if (/({%[^%]*$|{{[^}]*$|{#[^#]*$)/m.test(template))
            return template;
        return this.env.renderString(template, vars);
    }
    /**
     * A prompt: a JSON prompt (chat messages) has the strings inside it rendered
     * and is printed again with two-space indents; any other text has its string
     * vars rendered first (a var may use another), then is rendered with them.
     */
    renderPrompt(raw, vars) {
        let parsed;
        try {
            parsed = JSON.parse(raw);
        }
        catch {
            const rendered = Object.fromEntries(Object.entries(vars).map(([k, v]) => [k, typeof v === 'string' ? this.render(v, vars) : v]));
            return this.render(raw, rendered);
        }
        return JSON.stringify(this.renderDeep(parsed, vars), null, 2);
    }
    renderDeep(value, vars) {
        if (typeof value === 'string')
            return this.render(value, vars);
        if (Array.isArray(value))
            return value.map((v) => this.renderDeep(v, vars));
        if (value && typeof value === 'object')
            return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.renderDeep(v, vars)]));
        return value;
    }
}


/***/ })

};
