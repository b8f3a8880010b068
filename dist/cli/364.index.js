export const id = 364;
export const ids = [364];
export const modules = {

/***/ 56364:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   DEFAULT_JOB: () => (/* binding */ DEFAULT_JOB),
/* harmony export */   gitLabRemote: () => (/* binding */ gitLabRemote),
/* harmony export */   gitlabSource: () => (/* binding */ gitlabSource)
/* harmony export */ });
/* harmony import */ var _errors_js__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(83916);
/* harmony import */ var _gitlab_baseline_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(21876);
/* harmony import */ var _gitlab_client_js__WEBPACK_IMPORTED_MODULE_2__ = __webpack_require__(70696);
/* harmony import */ var _gitlab_context_js__WEBPACK_IMPORTED_MODULE_3__ = __webpack_require__(42980);
/* harmony import */ var _util_git_js__WEBPACK_IMPORTED_MODULE_4__ = __webpack_require__(13968);
/**
 * The GitLab source of `evalgate baseline pull`: the lookup `evalgate gitlab`
 * makes for a merge request (gitlab/baseline.ts: `evalgate-run.json` of the
 * job in the default branch's latest successful pipeline, else the newest
 * successful job of that name), from a laptop.
 * Token: EVALGATE_GITLAB_TOKEN, else GITLAB_TOKEN (else CI_JOB_TOKEN), as `evalgate gitlab` reads it.
 * Server: CI_API_V4_URL, else CI_SERVER_URL, else GITLAB_HOST (glab's), else the origin remote's host.
 */





/** The job `docs/gitlab.md`'s `.gitlab-ci.yml` names. */
const DEFAULT_JOB = 'evals';
/** Host (with port for http) and project path out of a remote URL: https, ssh or scp-like; nested groups kept. */
function gitLabRemote(url) {
    const m = /^(?:([a-z+]+):\/\/)?(?:[^@/]+@)?([^/:]+)(?::(\d+))?[/:](.+?)(?:\.git)?\/?$/i.exec(url.trim());
    if (!m || !m[4].includes('/'))
        return null;
    const scheme = m[1]?.toLowerCase();
    // an ssh port is not the web server's; an http(s) one is
    const web = scheme === 'http' || scheme === 'https';
    return { scheme: scheme === 'http' ? 'http' : 'https', host: web && m[3] ? `${m[2]}:${m[3]}` : m[2], project: m[4].replace(/^\/+/, '') };
}
function value(env, name) {
    const v = env[name]?.trim();
    return v ? v : null;
}
/** The REST API root: the CI job's, else the server named in the environment, else the remote's host. */
function apiUrlOf(env, remote) {
    const api = value(env, 'CI_API_V4_URL');
    if (api)
        return api;
    const server = value(env, 'CI_SERVER_URL') ?? value(env, 'GITLAB_HOST');
    if (server)
        return `${/^https?:\/\//i.test(server) ? server : `https://${server}`}`.replace(/\/+$/, '') + '/api/v4';
    if (remote)
        return `${remote.scheme}://${remote.host}/api/v4`;
    throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .UsageError */ .eb('baseline pull: which GitLab server? there is no origin remote to tell: set GITLAB_HOST (e.g. https://gitlab.example.com)');
}
function projectOf(request, remote, url) {
    const named = request.repo ?? value(request.env, 'CI_PROJECT_PATH');
    const project = named ?? remote?.project;
    if (!project || !/^(\d+|[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)+)$/.test(project)) {
        const why = named
            ? `"${named}" is neither a project id nor group/name`
            : url
                ? `the remote origin (${url}) names no group/project`
                : `${request.cwd} has no git remote "origin"`;
        throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .UsageError */ .eb(`baseline pull: which GitLab project? ${why}; say it with --repo GROUP/PROJECT`);
    }
    return project;
}
/** Why a request with the token failed, and what to do about it. */
function refused(err, from) {
    const status = err instanceof _gitlab_client_js__WEBPACK_IMPORTED_MODULE_2__/* .GitLabError */ .YZ ? err.status : -1;
    if (status === 401 || status === 403)
        return `${(0,_errors_js__WEBPACK_IMPORTED_MODULE_0__/* .errorMessage */ .gJ)(err)}: GitLab refused the token in ${from}; it must be a personal, project or group access token with the read_api scope that may read this project`;
    return (0,_errors_js__WEBPACK_IMPORTED_MODULE_0__/* .errorMessage */ .gJ)(err);
}
const gitlabSource = {
    id: 'gitlab',
    async pull(request) {
        if (request.workflow !== undefined)
            throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .UsageError */ .eb("baseline pull: --workflow names a GitHub workflow; on GitLab the baseline is a job's: say it with --job NAME");
        if (request.artifactNamed)
            throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .UsageError */ .eb(`baseline pull: --artifact-name is GitHub's; a GitLab job keeps the record as evalgate-run.json in its artifacts`);
        const url = (0,_util_git_js__WEBPACK_IMPORTED_MODULE_4__/* .originUrl */ .sH)(request.cwd, request.env);
        const remote = url ? gitLabRemote(url) : null;
        const projectId = projectOf(request, remote, url);
        const token = (0,_gitlab_context_js__WEBPACK_IMPORTED_MODULE_3__/* .tokenFrom */ .o)(request.env);
        if (!token)
            throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .UsageError */ .eb("baseline pull needs a GitLab token that can read the project's job artifacts: set GITLAB_TOKEN (or EVALGATE_GITLAB_TOKEN) to a personal access token with the read_api scope");
        const client = new _gitlab_client_js__WEBPACK_IMPORTED_MODULE_2__/* .GitLabClient */ .zZ({ apiUrl: apiUrlOf(request.env, remote), token });
        let branch = request.branch ?? null;
        if (!branch) {
            try {
                branch = await (0,_gitlab_baseline_js__WEBPACK_IMPORTED_MODULE_1__/* .projectDefaultBranch */ .Jf)(client, projectId);
            }
            catch (err) {
                const missing = err instanceof _gitlab_client_js__WEBPACK_IMPORTED_MODULE_2__/* .GitLabError */ .YZ && err.status === 404;
                throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .UsageError */ .eb(`baseline pull: cannot read project ${projectId}'s default branch at ${client.apiUrl}: ${missing ? `${(0,_errors_js__WEBPACK_IMPORTED_MODULE_0__/* .errorMessage */ .gJ)(err)} (no such project, or the token in ${token.from} may not see it; name it with --repo GROUP/PROJECT)` : refused(err, token.from)}`);
            }
            if (!branch)
                throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .UsageError */ .eb(`baseline pull: project ${projectId} has no default branch (is it empty?); name one with --branch`);
        }
        const jobName = request.job ?? DEFAULT_JOB;
        const found = await (0,_gitlab_baseline_js__WEBPACK_IMPORTED_MODULE_1__/* .findGitLabBaseline */ .S1)(client, { projectId, branch, jobName });
        if (found.status !== 'found')
            throw new _errors_js__WEBPACK_IMPORTED_MODULE_0__/* .UsageError */ .eb(found.status === 'none'
                ? `baseline pull: no baseline in ${projectId}: ${found.reason} (is the job that runs evalgate gitlab named otherwise? say it with --job NAME)`
                : `baseline pull: the baseline of ${projectId} could not be read: ${found.reason}`);
        const { record } = found;
        const web = client.apiUrl.replace(/\/api\/v4$/, '');
        const pipeline = record.git.runId;
        const job = found.jobId !== null && found.jobId !== pipeline ? found.jobId : null;
        const page = /^\d+$/.test(projectId) ? null : job ? `${web}/${projectId}/-/jobs/${job}` : pipeline ? `${web}/${projectId}/-/pipelines/${pipeline}` : null;
        const commit = record.git.sha ? `, commit ${record.git.sha.slice(0, 7)}` : '';
        return {
            record,
            from: `${projectId}, ${job ? `job ${job}` : `pipeline ${pipeline ?? '(unnamed)'}`} "${jobName}" on ${branch} (${record.createdAt}${commit})`,
            url: page,
            notices: found.notices
        };
    }
};


/***/ })

};
