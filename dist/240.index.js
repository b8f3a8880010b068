export const id = 240;
export const ids = [240];
export const modules = {

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
