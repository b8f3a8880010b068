export const id = 469;
export const ids = [469];
export const modules = {

/***/ 96469:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

// ESM COMPAT FLAG
__webpack_require__.r(__webpack_exports__);

// EXPORTS
__webpack_require__.d(__webpack_exports__, {
  githubSource: () => (/* binding */ githubSource),
  repositoryOfRemote: () => (/* binding */ repositoryOfRemote)
});

// EXTERNAL MODULE: external "node:path"
var external_node_path_ = __webpack_require__(76760);
var external_node_path_default = /*#__PURE__*/__webpack_require__.n(external_node_path_);
// EXTERNAL MODULE: ./src/errors.ts
var errors = __webpack_require__(83916);
// EXTERNAL MODULE: external "node:fs"
var external_node_fs_ = __webpack_require__(73024);
// EXTERNAL MODULE: ./node_modules/@actions/github/lib/github.js
var github = __webpack_require__(61351);
;// CONCATENATED MODULE: ./src/github/context.ts
/**
 * What the action knows about the run it is part of, read from the runner's
 * environment and event payload when `run()` starts (never at import time:
 * @actions/github's `context` is built on import, so it is not used).
 */




/** The value as a plain object, when it is one: the event payload is read field by field through this. */
function objectOf(value) {
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : null;
}
function context_text(value) {
    return typeof value === 'string' && value !== '' ? value : null;
}
function readPayload(file) {
    if (!file)
        return {};
    let raw;
    try {
        raw = readFileSync(file, 'utf8');
    }
    catch {
        return {};
    }
    try {
        return objectOf(JSON.parse(raw)) ?? {};
    }
    catch {
        throw new UsageError(`GITHUB_EVENT_PATH ${file}: the event payload is not valid JSON`);
    }
}
/** ".github/workflows/evals.yml" out of "owner/repo/.github/workflows/evals.yml@refs/heads/main". */
function workflowPathFromRef(ref, repository) {
    if (!ref)
        return null;
    const at = ref.lastIndexOf('@');
    const withoutRef = at === -1 ? ref : ref.slice(0, at);
    const prefix = `${repository}/`;
    const file = withoutRef.startsWith(prefix) ? withoutRef.slice(prefix.length) : withoutRef.split('/').slice(2).join('/');
    return file || null;
}
function pullRequestOf(payload) {
    const pr = objectOf(payload.pull_request);
    if (!pr || typeof pr.number !== 'number')
        return null;
    const head = objectOf(pr.head);
    const base = objectOf(pr.base);
    const labels = Array.isArray(pr.labels) ? pr.labels.map((l) => context_text(objectOf(l)?.name)).filter((l) => l !== null) : [];
    return { number: pr.number, headSha: context_text(head?.sha), baseRef: context_text(base?.ref), baseSha: context_text(base?.sha), labels };
}
function readContext(env) {
    const repository = env.GITHUB_REPOSITORY ?? '';
    const [owner, repo] = repository.split('/');
    if (!owner || !repo)
        throw new UsageError('GITHUB_REPOSITORY is not set (owner/repo); is this running in GitHub Actions?');
    const payload = readPayload(env.GITHUB_EVENT_PATH);
    const runId = Number(env.GITHUB_RUN_ID);
    const runAttempt = Number(env.GITHUB_RUN_ATTEMPT);
    return {
        owner,
        repo,
        repository,
        eventName: env.GITHUB_EVENT_NAME ?? '',
        payload,
        runId: Number.isSafeInteger(runId) && runId > 0 ? runId : null,
        runAttempt: Number.isSafeInteger(runAttempt) && runAttempt > 0 ? runAttempt : 1,
        workflowPath: workflowPathFromRef(env.GITHUB_WORKFLOW_REF, repository),
        workflowName: env.GITHUB_WORKFLOW || null,
        sha: env.GITHUB_SHA ?? null,
        ref: env.GITHUB_REF ?? null,
        apiUrl: env.GITHUB_API_URL || 'https://api.github.com',
        serverUrl: env.GITHUB_SERVER_URL || 'https://github.com',
        workspace: env.GITHUB_WORKSPACE || process.cwd(),
        tempDir: env.RUNNER_TEMP || path.join(env.GITHUB_WORKSPACE || process.cwd(), '.evalgate'),
        pullRequest: pullRequestOf(payload),
        defaultBranch: context_text(objectOf(payload.repository)?.default_branch)
    };
}
/** The page of a workflow run, `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/<id>`; null without an id. */
function runUrl(ctx, runId) {
    if (runId === null || !/^\d+$/.test(String(runId)))
        return null;
    return `${ctx.serverUrl.replace(/\/+$/, '')}/${ctx.repository}/actions/runs/${runId}`;
}
function createOctokit(token, ctx) {
    return (0,github/* getOctokit */.Q)(token, { baseUrl: ctx.apiUrl });
}
/** The HTTP status of an Octokit RequestError, else undefined. */
function httpStatus(err) {
    const status = err?.status;
    return typeof status === 'number' ? status : undefined;
}
/** Octokit's message, with a hint for the statuses a workflow's permissions cause. */
function context_apiMessage(err, permission = 'actions: read') {
    const status = httpStatus(err);
    const hint = status === 403 || status === 404 ? ` (does the token have ${permission}?)` : '';
    return `${(0,errors/* errorMessage */.gJ)(err)}${hint}`;
}
/** The branch whose runs give the baseline: the input, else the repository's default branch. */
async function context_resolveBaselineBranch(octokit, ctx, input) {
    if (input)
        return input;
    if (ctx.defaultBranch)
        return ctx.defaultBranch;
    const { data } = await octokit.rest.repos.get({ owner: ctx.owner, repo: ctx.repo });
    return data.default_branch;
}
/** This run's workflow: its file name from GITHUB_WORKFLOW_REF, else its id from the run itself. */
async function context_resolveWorkflow(octokit, ctx) {
    if (ctx.workflowPath)
        return path.posix.basename(ctx.workflowPath);
    if (ctx.runId === null)
        return null;
    const { data } = await octokit.rest.actions.getWorkflowRun({ owner: ctx.owner, repo: ctx.repo, run_id: ctx.runId });
    return data.workflow_id;
}

// EXTERNAL MODULE: external "node:crypto"
var external_node_crypto_ = __webpack_require__(77598);
// EXTERNAL MODULE: external "node:fs/promises"
var promises_ = __webpack_require__(51455);
// EXTERNAL MODULE: ./src/config/record.ts + 1 modules
var record = __webpack_require__(87763);
// EXTERNAL MODULE: ./src/util/dirs.ts
var dirs = __webpack_require__(36210);
// EXTERNAL MODULE: external "node:stream"
var external_node_stream_ = __webpack_require__(57075);
// EXTERNAL MODULE: external "node:zlib"
var external_node_zlib_ = __webpack_require__(38522);
var external_node_zlib_default = /*#__PURE__*/__webpack_require__.n(external_node_zlib_);
;// CONCATENATED MODULE: ./src/github/zip.ts
/**
 * Reading one file out of a downloaded artifact zip, in memory. Artifacts of
 * other runs are untrusted (a fork's run can upload anything), so nothing is
 * extracted to disk: entries whose names would escape a folder, symlinks,
 * encrypted or zip64 entries and oversized contents make the whole archive
 * unreadable, and every entry read is checked against its CRC.
 *
 * Kept rather than yauzl, for what yauzl leaves to its caller (yauzl 3.4.0,
 * Node 20.20, 2026-12-02, `node scripts/measure-infra.mjs`): it never checks
 * the CRC (a corrupted run.json reads as good), hands over a symbolic link and
 * a 200 MB entry like any other, and adds 26.5 KB to a minified bundle (this
 * file: 3.8 KB; 56 and 9 KB unminified, as ncc bundles dist/). Both refuse
 * `..`, absolute and backslash names and truncated archives, and stop a bomb
 * that understates its size within 16 KB. Speed decides nothing: a
 * 100,000-case baseline (run.json 54.5 MB, zipped 3.1 MB) reads in 1.1–1.4 s
 * here and 1.2–2.3 s with yauzl plus a CRC check (two runs, medians of 5 and
 * 7, on a loaded 2-core machine).
 */


class ZipError extends Error {
    name = 'ZipError';
}
const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;
const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++)
        c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
});
/** CRC-32 (the zip one, reflected 0xEDB88320), continued from `crc`: for Node before 20.15/22.2, which lack zlib.crc32. */
function tableCrc32(data, crc = 0) {
    let c = ~crc >>> 0;
    for (let i = 0; i < data.length; i++)
        c = CRC_TABLE[(c ^ data[i]) & 0xff] ^ (c >>> 8);
    return ~c >>> 0;
}
/** The check is never skipped: engines says Node >= 20, and zlib.crc32 came only with 20.15. */
const crc32 = typeof (external_node_zlib_default()).crc32 === 'function' ? (external_node_zlib_default()).crc32 : tableCrc32;
/** A name that, extracted, would stay inside the folder it is extracted to. */
function isSafeEntryName(name) {
    if (name === '' || name.includes('\\') || name.includes('\0'))
        return false;
    if (name.startsWith('/') || /^[A-Za-z]:/.test(name))
        return false;
    return !name.split('/').some((part) => part === '..');
}
function findEndOfCentralDirectory(zip) {
    // the record is 22 bytes plus a comment of up to 65535
    const stop = Math.max(0, zip.length - 22 - 0xffff);
    for (let i = zip.length - 22; i >= stop; i--) {
        if (zip.readUInt32LE(i) === EOCD)
            return i;
    }
    throw new ZipError('not a zip archive (no end of central directory)');
}
function listZip(zip) {
    if (zip.length < 22)
        throw new ZipError('not a zip archive (too short)');
    const end = findEndOfCentralDirectory(zip);
    const count = zip.readUInt16LE(end + 10);
    const size = zip.readUInt32LE(end + 12);
    const start = zip.readUInt32LE(end + 16);
    if (count === 0xffff || start === 0xffffffff || size === 0xffffffff)
        throw new ZipError('zip64 archives are not supported');
    if (start + size > end)
        throw new ZipError('the central directory lies outside the archive');
    const entries = [];
    let at = start;
    for (let i = 0; i < count; i++) {
        if (at + 46 > end || zip.readUInt32LE(at) !== CENTRAL)
            throw new ZipError(`entry ${i}: bad central directory header`);
        const madeBy = zip.readUInt16LE(at + 4) >> 8;
        const flags = zip.readUInt16LE(at + 8);
        const nameLength = zip.readUInt16LE(at + 28);
        const extraLength = zip.readUInt16LE(at + 30);
        const commentLength = zip.readUInt16LE(at + 32);
        const mode = zip.readUInt32LE(at + 38) >>> 16;
        const name = zip.subarray(at + 46, at + 46 + nameLength).toString(flags & 0x800 ? 'utf8' : 'latin1');
        const entry = {
            name,
            method: zip.readUInt16LE(at + 10),
            flags,
            crc: zip.readUInt32LE(at + 16),
            compressedSize: zip.readUInt32LE(at + 20),
            size: zip.readUInt32LE(at + 24),
            offset: zip.readUInt32LE(at + 42),
            // unix hosts keep the file mode in the high half of the external attributes
            symlink: madeBy === 3 && (mode & 0o170000) === 0o120000
        };
        if (!isSafeEntryName(name))
            throw new ZipError(`entry "${name.slice(0, 100)}" would escape the folder it is extracted to`);
        if (entry.symlink)
            throw new ZipError(`entry "${name}" is a symbolic link`);
        if (flags & 1)
            throw new ZipError(`entry "${name}" is encrypted`);
        if (entry.size === 0xffffffff || entry.compressedSize === 0xffffffff || entry.offset === 0xffffffff)
            throw new ZipError(`entry "${name}" is zip64, not supported`);
        entries.push(entry);
        at += 46 + nameLength + extraLength + commentLength;
    }
    return entries;
}
/**
 * The bytes of one entry a piece at a time, at most `maxBytes` of them in all,
 * checked against the directory's size and CRC once all are read: a 64 MB
 * record is never one buffer.
 */
async function* zipEntryChunks(zip, entry, maxBytes) {
    if (entry.size > maxBytes)
        throw new ZipError(`"${entry.name}" is ${entry.size} bytes, more than the ${maxBytes} allowed`);
    const at = entry.offset;
    if (at + 30 > zip.length || zip.readUInt32LE(at) !== LOCAL)
        throw new ZipError(`"${entry.name}": bad local header`);
    const dataStart = at + 30 + zip.readUInt16LE(at + 26) + zip.readUInt16LE(at + 28);
    const dataEnd = dataStart + entry.compressedSize;
    if (dataEnd > zip.length)
        throw new ZipError(`"${entry.name}": data runs past the end of the archive`);
    const raw = zip.subarray(dataStart, dataEnd);
    if (entry.method !== STORED && entry.method !== DEFLATED)
        throw new ZipError(`"${entry.name}": compression method ${entry.method} is not supported`);
    const pieces = entry.method === STORED ? [raw] : external_node_stream_.Readable.from([raw]).pipe(external_node_zlib_default().createInflateRaw());
    let size = 0;
    let crc = 0;
    try {
        for await (const piece of pieces) {
            size += piece.length;
            // the directory may lie about the size (a zip bomb): inflating stops as soon as it passes the declared
            // size, itself within maxBytes, rather than at maxBytes (measured: 128 MB inflated for a 1 KB claim)
            if (size > entry.size)
                throw new ZipError(`"${entry.name}" inflates past the ${entry.size} bytes its directory entry declares`);
            crc = crc32(piece, crc);
            yield piece;
        }
    }
    catch (err) {
        if (err instanceof ZipError)
            throw err;
        throw new ZipError(`"${entry.name}": cannot inflate (${err.message})`);
    }
    finally {
        if (pieces instanceof external_node_stream_.Readable)
            pieces.destroy();
    }
    if (size !== entry.size)
        throw new ZipError(`"${entry.name}": ${size} bytes, the directory says ${entry.size}`);
    if (crc >>> 0 !== entry.crc >>> 0)
        throw new ZipError(`"${entry.name}": CRC mismatch (corrupt archive)`);
}

// EXTERNAL MODULE: ./src/github/artifacts/names.ts
var names = __webpack_require__(67487);
;// CONCATENATED MODULE: ./src/github/artifacts/download.ts
/**
 * Reading a run record out of another run's artifact. Artifacts of other runs
 * are untrusted input: what is downloaded goes into a fresh folder of its own,
 * is read in memory out of the zip (see ../zip.ts), never extracted, and is
 * validated with parseRunRecord.
 */









const MAX_ARTIFACT_BYTES = 256 * 1024 * 1024;
const MAX_RECORD_BYTES = 128 * 1024 * 1024;
/** The artifacts of a run whose names pass `keep`, every page of them. */
async function listRunArtifacts(target, runId, keep) {
    const { octokit, owner, repo } = target;
    const matches = [];
    const pages = octokit.paginate.iterator(octokit.rest.actions.listWorkflowRunArtifacts, { owner, repo, run_id: runId, per_page: 100 });
    for await (const page of pages) {
        for (const a of page.data)
            if (keep(a.name))
                matches.push(a);
    }
    return matches;
}
/** The newest non-expired artifact of the run holding the record published as `name`, and whether expired ones were seen. Throws what the API throws. */
async function findRecordArtifact(target, runId, name) {
    const matches = await listRunArtifacts(target, runId, (candidate) => (0,names/* isRecordArtifactName */.N0)(candidate, name));
    const live = matches.filter((a) => !a.expired).sort((a, b) => b.id - a.id);
    return { artifact: live[0] ?? null, expired: matches.some((a) => a.expired) };
}
/** The run record inside a downloaded artifact: a zip holding run.json (or, uploaded unzipped, the JSON itself). */
async function recordFromArtifactBytes(bytes, label, options) {
    if (bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04])) || bytes.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x05, 0x06]))) {
        const entries = listZip(bytes);
        const entry = entries.find((e) => e.name === names/* RECORD_FILE */.lt);
        if (!entry)
            throw new ZipError(`it holds no ${names/* RECORD_FILE */.lt} (found: ${entries
                .map((e) => e.name)
                .slice(0, 5)
                .join(', ') || 'nothing'})`);
        // inflated and read a piece at a time: the record's text is never whole in memory
        return (0,record/* recordFromChunks */.K5)(zipEntryChunks(bytes, entry, MAX_RECORD_BYTES), label, options);
    }
    return (0,record/* parseRunRecord */.Yz)(bytes, label, options);
}
/** Download one artifact into a fresh folder and read the run record out of it; throws when it cannot (a 410 when it expired meanwhile). */
async function downloadRecord(target, runId, artifact, options) {
    const bytes = await downloadArtifactBytes(target, runId, artifact);
    return recordFromArtifactBytes(bytes, `artifact "${artifact.name}" of run ${runId}`, options);
}
/**
 * One artifact's bytes, downloaded into a fresh folder (removed after) and
 * read in memory; checked against the digest GitHub recorded as they arrive,
 * and again as read, so that nothing that changed the file in between goes
 * unseen. Throws when it cannot (a 410 when it expired meanwhile).
 */
async function downloadArtifactBytes(target, runId, artifact) {
    await (0,dirs/* makeDir */.g)(target.tempDir);
    const dir = await (0,promises_.mkdtemp)(external_node_path_default().join(target.tempDir, 'evalgate-download-'));
    try {
        const { digestMismatch } = await target.client.downloadArtifact(artifact.id, {
            path: dir,
            // the zip is read in memory (zip.ts), never extracted by the client
            skipDecompress: true,
            expectedHash: artifact.digest ?? undefined,
            findBy: { token: target.token, workflowRunId: runId, repositoryOwner: target.owner, repositoryName: target.repo }
        });
        if (digestMismatch)
            throw new ZipError('its content does not match the digest GitHub recorded');
        const files = await (0,promises_.readdir)(dir);
        if (files.length !== 1)
            throw new ZipError(`expected one downloaded file, found ${files.length}`);
        const file = external_node_path_default().join(dir, files[0]);
        const info = await (0,promises_.stat)(file);
        if (!info.isFile())
            throw new ZipError('the download is not a file');
        if (info.size > MAX_ARTIFACT_BYTES)
            throw new ZipError(`it is ${info.size} bytes, more than the ${MAX_ARTIFACT_BYTES} allowed`);
        const bytes = await (0,promises_.readFile)(file);
        if (artifact.digest && artifact.digest !== `sha256:${(0,external_node_crypto_.createHash)('sha256').update(bytes).digest('hex')}`)
            throw new ZipError('the downloaded file changed before it was read: it no longer matches the digest GitHub recorded');
        return bytes;
    }
    finally {
        await (0,promises_.rm)(dir, { recursive: true, force: true });
    }
}
/** Did the download fail because the artifact expired after it was listed (410 Gone)? */
function isExpiredOnDownload(err) {
    return httpStatus(err) === 410;
}
/** Fetch the run record a run published as artifact `name`; never throws for a missing or bad artifact. */
async function fetchRunRecord(target, runId, name, options) {
    let found;
    try {
        found = await findRecordArtifact(target, runId, name);
    }
    catch (err) {
        return { status: 'unreadable', message: `cannot list the artifacts of run ${runId}: ${apiMessage(err)}` };
    }
    if (!found.artifact) {
        return found.expired
            ? { status: 'expired', message: `the artifact "${name}" of run ${runId} has expired` }
            : { status: 'missing', message: `run ${runId} has no artifact "${name}"` };
    }
    try {
        const record = await downloadRecord(target, runId, found.artifact, options);
        return { status: 'ok', record, artifactName: found.artifact.name };
    }
    catch (err) {
        if (isExpiredOnDownload(err))
            return { status: 'expired', message: `the artifact "${found.artifact.name}" of run ${runId} has expired` };
        return { status: 'unreadable', message: `the artifact "${found.artifact.name}" of run ${runId} is unreadable: ${errorMessage(err)}` };
    }
}

;// CONCATENATED MODULE: ./src/github/artifacts/baseline.ts




/** Events whose runs on the baseline branch describe the branch itself. */
const BASELINE_EVENTS = ['push', 'schedule', 'workflow_dispatch'];
/** The run's trigger, branch and repository qualify; its commit is checked later, only if it has an artifact. */
function isCandidate(run, query) {
    return (BASELINE_EVENTS.includes(run.event) &&
        run.head_branch === query.branch &&
        run.id !== query.currentRunId &&
        // never a fork's run, whatever branch name it claims
        (run.head_repository?.full_name ?? '').toLowerCase() === query.repository.toLowerCase());
}
/** A step of the lookup that could not be done: ends it with `error`. */
class LookupFailure extends Error {
}
/** Which runs the lookup looks at, for messages. */
function runsDescription(query) {
    const workflow = typeof query.workflow === 'number' ? `workflow ${query.workflow}` : query.workflow;
    return `of ${workflow} on ${query.branch} (${BASELINE_EVENTS.join(', ')} from ${query.repository})`;
}
/** Candidate runs, newest first, with the base commit's runs (if any) first of all. */
async function* candidateRuns(query) {
    const { octokit, owner, repo, workflow, branch } = query;
    const seen = new Set();
    const base = { owner, repo, workflow_id: workflow, branch, per_page: 100 };
    const cannotList = (err) => new LookupFailure(`cannot list the runs ${runsDescription(query)}: ${context_apiMessage(err)}`);
    if (query.baseSha) {
        const atBase = await octokit.rest.actions.listWorkflowRuns({ ...base, head_sha: query.baseSha }).catch((err) => {
            throw cannotList(err);
        });
        for (const run of atBase.data.workflow_runs) {
            if (!isCandidate(run, query) || run.head_sha !== query.baseSha)
                continue;
            seen.add(run.id);
            yield run;
        }
    }
    let scanned = 0;
    const maxRuns = query.maxRuns ?? 300;
    const pages = octokit.paginate.iterator(octokit.rest.actions.listWorkflowRuns, base)[Symbol.asyncIterator]();
    while (true) {
        const page = await pages.next().catch((err) => {
            throw cannotList(err);
        });
        if (page.done)
            return;
        for (const run of page.value.data) {
            if (++scanned > maxRuns)
                return;
            if (seen.has(run.id) || !isCandidate(run, query))
                continue;
            seen.add(run.id);
            yield run;
        }
    }
}
/**
 * Is `sha` in the history of the baseline branch? `GET compare/{branch}...{sha}`
 * answers how the commit stands to the branch's head: `identical` or `behind`
 * means it is the head or one of its ancestors.
 */
async function isOnBranch(query, sha) {
    const { octokit, owner, repo, branch } = query;
    try {
        const { data } = await octokit.rest.repos.compareCommitsWithBasehead({ owner, repo, basehead: `${branch}...${sha}`, per_page: 1 });
        return { onBranch: data.status === 'identical' || data.status === 'behind', status: data.status };
    }
    catch (err) {
        throw new LookupFailure(`cannot tell whether commit ${sha.slice(0, 7)} is in ${branch}'s history (GET compare/${branch}...${sha.slice(0, 7)}): ${context_apiMessage(err, 'contents: read')}`);
    }
}
/**
 * A tag named like the branch would make `compare/{branch}...` ambiguous (git
 * resolves a short name to a tag before a branch), and then a commit that is
 * only on the tag would look like the branch's head. Only a tag that exists
 * stops the lookup: any error here reads as "no such tag", as a 404 does, so
 * that a server without this endpoint does not stop every lookup.
 */
async function tagShadowsBranch(query) {
    const { octokit, owner, repo, branch } = query;
    try {
        await octokit.rest.git.getRef({ owner, repo, ref: `tags/${branch}` });
        return true;
    }
    catch {
        return false;
    }
}
function noBaseline(notices, reason) {
    return { status: 'none', reason, notices: [...notices, `no baseline: ${reason}; comparison skipped, only the absolute floors are gated`] };
}
function lookupError(notices, reason) {
    return { status: 'error', reason, notices };
}
/**
 * The baseline a candidate run gives, or null to look at older runs (no live
 * artifact, or its commit is not on the branch: both said in `notices`).
 * Throws a LookupFailure when the run has an artifact that cannot be used.
 */
async function baselineOfRun(query, run, notices, checkTag) {
    const { branch, artifactName } = query;
    let found;
    try {
        found = await findRecordArtifact(query, run.id, artifactName);
    }
    catch (err) {
        throw new LookupFailure(`cannot list the artifacts of run ${run.id}: ${context_apiMessage(err)}`);
    }
    const { artifact } = found;
    if (!artifact) {
        if (found.expired)
            notices.push(`baseline: the artifact "${artifactName}" of run ${run.id} has expired; looking at older runs`);
        return null;
    }
    await checkTag();
    const history = await isOnBranch(query, run.head_sha);
    if (!history.onBranch) {
        notices.push(`baseline: run ${run.id} (${run.event}, commit ${run.head_sha.slice(0, 7)}) says it ran on ${branch}, but its commit is not in ${branch}'s history (compare: ${history.status}); skipped`);
        return null;
    }
    let record;
    try {
        record = await downloadRecord(query, run.id, artifact, query.read);
    }
    catch (err) {
        if (!isExpiredOnDownload(err))
            throw new LookupFailure(`the baseline artifact "${artifact.name}" of run ${run.id} could not be read: ${(0,errors/* errorMessage */.gJ)(err)}`);
        notices.push(`baseline: the artifact "${artifact.name}" of run ${run.id} has expired; looking at older runs`);
        return null;
    }
    const baselineRun = { id: run.id, sha: run.head_sha, createdAt: run.created_at, url: run.html_url ?? null };
    return { status: 'found', record, run: baselineRun, artifactName: artifact.name, notices };
}
async function findBaseline(query) {
    const notices = [];
    const maxLookups = query.maxArtifactLookups ?? 30;
    let lookups = 0;
    // once per lookup, and only when some run has an artifact to compare
    let tagChecked = false;
    const checkTag = async () => {
        if (tagChecked)
            return;
        tagChecked = true;
        if (await tagShadowsBranch(query)) {
            throw new LookupFailure(`the repository has a tag named "${query.branch}", so a run "on ${query.branch}" cannot be told from a run on that tag; delete the tag (git push origin :refs/tags/${query.branch})`);
        }
    };
    try {
        for await (const run of candidateRuns(query)) {
            if (++lookups > maxLookups)
                return noBaseline(notices, `none of the newest ${maxLookups} runs ${runsDescription(query)} has a non-expired artifact "${query.artifactName}"`);
            const found = await baselineOfRun(query, run, notices, checkTag);
            if (found)
                return found;
        }
    }
    catch (err) {
        if (err instanceof LookupFailure)
            return lookupError(notices, err.message);
        throw err;
    }
    return noBaseline(notices, `no run ${runsDescription(query)} has a non-expired artifact "${query.artifactName}"`);
}
/**
 * The baseline of a run of this repository: the branch (input, else the
 * default branch) and the workflow (this run's, unless given) resolved first.
 */
async function lookUpBaseline(octokit, ctx, inputs, query) {
    let branch;
    let workflow;
    try {
        branch = query.branch ?? (await resolveBaselineBranch(octokit, ctx, inputs.baselineBranch));
        workflow = query.workflow ?? (await resolveWorkflow(octokit, ctx));
    }
    catch (err) {
        return lookupError([], `cannot read the repository's default branch or this run's workflow: ${apiMessage(err, 'contents: read and actions: read')}`);
    }
    if (workflow === null)
        return lookupError([], 'this run does not say which workflow it belongs to (no GITHUB_WORKFLOW_REF or GITHUB_RUN_ID), so its baseline cannot be looked up');
    return findBaseline({
        octokit,
        client: await artifactClient(),
        token: inputs.token,
        owner: ctx.owner,
        repo: ctx.repo,
        repository: ctx.repository,
        tempDir: ctx.tempDir,
        workflow,
        branch,
        artifactName: query.artifactName,
        baseSha: query.baseSha,
        currentRunId: query.currentRunId,
        read: query.read
    });
}

;// CONCATENATED MODULE: ./src/github/artifacts/client.ts
/**
 * The artifact client, loaded on first use: it is the largest part of the
 * bundle, and a run without a baseline to fetch should not wait for it.
 */
async function client_artifactClient() {
    const { DefaultArtifactClient } = await __webpack_require__.e(/* import() */ 690).then(__webpack_require__.bind(__webpack_require__, 35690));
    return new DefaultArtifactClient();
}

// EXTERNAL MODULE: ./src/init/templates.ts + 1 modules
var templates = __webpack_require__(33297);
// EXTERNAL MODULE: ./src/util/git.ts
var git = __webpack_require__(13968);
;// CONCATENATED MODULE: ./src/baseline/github.ts
/**
 * The GitHub source of `evalgate baseline pull`: the same lookup the action
 * makes for a pull request (github/artifacts/baseline.ts: the newest run of
 * the workflow on the branch, from push, schedule or workflow_dispatch of this
 * repository, its commit on the branch, its record validated), from a laptop.
 * Token: GITHUB_TOKEN, else GH_TOKEN, else `gh auth token`.
 */







/** The token to read the repository's runs and artifacts with (actions: read), and where it came from. */
function tokenOf(request) {
    const { env } = request;
    const token = env.GITHUB_TOKEN || env.GH_TOKEN || (0,git/* outputOf */.jH)('gh', ['auth', 'token'], request.cwd, env);
    if (!token)
        throw new errors/* UsageError */.eb('baseline pull needs a GitHub token that can read the repository\'s Actions runs and artifacts: set GITHUB_TOKEN (a fine-grained token with "Actions: read" and "Contents: read"), or log in with the GitHub CLI (gh auth login)');
    return token;
}
/** "owner/name" out of a GitHub remote URL: https, ssh or scp-like. */
function repositoryOfRemote(url) {
    const m = /^(?:[a-z+]+:\/\/)?(?:[^@/]+@)?[^/:]+(?::\d+)?[/:]([^/]+)\/([^/]+?)(?:\.git)?\/?$/i.exec(url.trim());
    return m ? `${m[1]}/${m[2]}` : null;
}
function repositoryOf(request) {
    const named = request.repo ?? request.env.GITHUB_REPOSITORY;
    const remote = named ? null : (0,git/* originUrl */.sH)(request.cwd, request.env);
    const repository = named ?? (remote ? repositoryOfRemote(remote) : null);
    if (!repository || !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repository)) {
        const why = named
            ? `"${named}" is not owner/name`
            : remote
                ? `the remote origin (${remote}) names no owner/name`
                : `${request.cwd} has no git remote "origin"`;
        throw new errors/* UsageError */.eb(`baseline pull: which repository? ${why}; say it with --repo OWNER/NAME`);
    }
    return repository;
}
/** A workflow the repository does not have is named as such, with the ones it has, rather than as a run list that could not be read. */
async function checkWorkflow(octokit, owner, repo, workflow) {
    try {
        await octokit.rest.actions.getWorkflow({ owner, repo, workflow_id: workflow });
    }
    catch (err) {
        if (httpStatus(err) !== 404)
            return;
        let names = [];
        try {
            const { data } = await octokit.rest.actions.listRepoWorkflows({ owner, repo, per_page: 100 });
            names = data.workflows.map((w) => external_node_path_default().posix.basename(w.path));
        }
        catch {
            names = [];
        }
        throw new errors/* UsageError */.eb(`baseline pull: ${owner}/${repo} has no workflow ${workflow}${names.length ? ` (its workflows: ${names.join(', ')})` : ' that this token can see'}: name the one that runs evalgate with --workflow FILE`);
    }
}
/**
 * The artifact client logs through @actions/core to the process's stdout
 * (`::debug::` lines, download progress): a workflow log's business, not a
 * terminal's. What it would say of a failure is in the error it throws.
 */
async function quietly(work) {
    const write = process.stdout.write;
    process.stdout.write = (() => true);
    try {
        return await work();
    }
    finally {
        process.stdout.write = write;
    }
}
const githubSource = {
    id: 'github',
    async pull(request) {
        if (request.job !== undefined)
            throw new errors/* UsageError */.eb("baseline pull: --job names a GitLab job; on GitHub the baseline is a workflow's: say it with --workflow FILE");
        const artifactName = await request.artifactName();
        const repository = repositoryOf(request);
        const [owner, repo] = repository.split('/');
        const token = tokenOf(request);
        const octokit = createOctokit(token, { apiUrl: request.env.GITHUB_API_URL || 'https://api.github.com' });
        let branch = request.branch;
        if (!branch) {
            try {
                branch = (await octokit.rest.repos.get({ owner, repo })).data.default_branch;
            }
            catch (err) {
                throw new errors/* UsageError */.eb(`baseline pull: cannot read ${repository}'s default branch: ${context_apiMessage(err, 'contents: read')}`);
            }
        }
        // a path such as .github/workflows/evalgate.yml names the same workflow as its file name
        const workflow = external_node_path_default().posix.basename((request.workflow ?? templates/* WORKFLOW_FILE */.XC).replaceAll('\\', '/'));
        await checkWorkflow(octokit, owner, repo, workflow);
        const client = await client_artifactClient();
        const lookup = await quietly(() => findBaseline({
            octokit,
            client,
            token,
            owner,
            repo,
            repository,
            tempDir: request.tempDir,
            workflow,
            branch,
            artifactName,
            // the newest run, as a pull request opened now would be compared with
            baseSha: null,
            currentRunId: null
        }));
        if (lookup.status !== 'found')
            throw new errors/* UsageError */.eb(lookup.status === 'none'
                ? `baseline pull: no baseline in ${repository}: ${lookup.reason}`
                : `baseline pull: the baseline of ${repository} could not be read: ${lookup.reason}`);
        const { run } = lookup;
        return {
            record: lookup.record,
            from: `${repository}, run ${run.id} of ${workflow} on ${branch} (commit ${run.sha.slice(0, 7)}, ${run.createdAt})`,
            url: run.url,
            notices: lookup.notices
        };
    }
};


/***/ })

};
