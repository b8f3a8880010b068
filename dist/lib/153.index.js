export const id = 153;
export const ids = [153];
export const modules = {

/***/ 153:
/***/ ((__unused_webpack_module, __webpack_exports__, __webpack_require__) => {

__webpack_require__.r(__webpack_exports__);
/* harmony export */ __webpack_require__.d(__webpack_exports__, {
/* harmony export */   DEFAULT_MAX_SPANS: () => (/* binding */ DEFAULT_MAX_SPANS),
/* harmony export */   DEFAULT_QUIET_MS: () => (/* binding */ DEFAULT_QUIET_MS),
/* harmony export */   DEFAULT_WAIT_MS: () => (/* binding */ DEFAULT_WAIT_MS),
/* harmony export */   TraceCollector: () => (/* binding */ TraceCollector),
/* harmony export */   systemClock: () => (/* binding */ systemClock)
/* harmony export */ });
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0__ = __webpack_require__(7598);
/* harmony import */ var node_crypto__WEBPACK_IMPORTED_MODULE_0___default = /*#__PURE__*/__webpack_require__.n(node_crypto__WEBPACK_IMPORTED_MODULE_0__);
/* harmony import */ var _spans_js__WEBPACK_IMPORTED_MODULE_1__ = __webpack_require__(1951);
/**
 * The spans of each trial in progress: every trial gets a fresh W3C
 * trace context; spans that arrive are kept by trace id (or by the resource's
 * `evalgate.trial`, for a stdio process whose SDK starts traces of its own);
 * after the target's reply the trial waits until no span of it has arrived for
 * a quiet period, at most `waitMs`. Spans of traces no trial opened are
 * dropped, those of a trial already graded are counted as late on its
 * summary, and a trial keeps at most `maxSpans` (the rest counted as dropped),
 * so memory is bounded whatever arrives. The clock is a parameter: tests drive
 * the waits without depending on the machine's speed.
 */


/** Real time; its timers do not keep the process alive on their own. */
const systemClock = {
    now: () => performance.now(),
    setTimeout: (fn, ms) => setTimeout(fn, ms).unref(),
    clearTimeout: (handle) => clearTimeout(handle)
};
const DEFAULT_WAIT_MS = 2000;
const DEFAULT_QUIET_MS = 100;
const DEFAULT_MAX_SPANS = 10_000;
/** error spans named in a summary; the count is always whole */
const MAX_ERROR_SPANS = 20;
/** summaries of graded trials kept to count late spans on */
const MAX_CLOSED = 65_536;
class TraceCollector {
    open = new Map();
    closed = new Map();
    quietMs;
    waitMs;
    maxSpans;
    clock;
    /** spans of traces no trial opened, over the whole run */
    unknownSpans = 0;
    /** trials that sent more than maxSpans spans */
    cappedTrials = 0;
    constructor(options = {}) {
        this.quietMs = options.quietMs ?? DEFAULT_QUIET_MS;
        this.waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
        this.maxSpans = options.maxSpans ?? DEFAULT_MAX_SPANS;
        this.clock = options.clock ?? systemClock;
    }
    /** A fresh trace context for one trial. */
    begin() {
        const traceId = (0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.randomBytes)(16).toString('hex');
        const trace = new OpenTrace(this, traceId, `00-${traceId}-${(0,node_crypto__WEBPACK_IMPORTED_MODULE_0__.randomBytes)(8).toString('hex')}-01`);
        this.open.set(traceId, trace);
        return trace;
    }
    /** Spans as they arrive: each to its trial by trace id, else by `evalgate.trial`. */
    add(spans) {
        const intake = { accepted: 0, rejected: 0 };
        const now = this.clock.now();
        for (const span of spans) {
            const trace = this.open.get(span.traceId) ?? (span.trial === undefined ? undefined : this.open.get(span.trial));
            if (trace) {
                if (trace.take(span, now, this.maxSpans))
                    intake.accepted++;
                else
                    intake.rejected++;
                continue;
            }
            intake.rejected++;
            const graded = this.closed.get(span.traceId) ?? (span.trial === undefined ? undefined : this.closed.get(span.trial));
            if (graded)
                graded.late = (graded.late ?? 0) + 1;
            else
                this.unknownSpans++;
        }
        return intake;
    }
    /** @internal the wait of OpenTrace.settle */
    wait(trace, since) {
        const deadline = since + this.waitMs;
        return new Promise((resolve) => {
            const check = () => {
                const now = this.clock.now();
                // quiet since the reply, or since the last span that came after it
                const quietAt = Math.max(trace.lastArrival, since) + this.quietMs;
                if (now >= quietAt || now >= deadline)
                    return resolve();
                trace.timer = this.clock.setTimeout(check, Math.min(quietAt, deadline) - now);
            };
            check();
        });
    }
    /** @internal a trace graded or discarded: its summary stays to count late spans on */
    close(trace, summary) {
        this.open.delete(trace.traceId);
        if (this.closed.size >= MAX_CLOSED)
            this.closed.delete(this.closed.keys().next().value);
        this.closed.set(trace.traceId, summary);
    }
}
class OpenTrace {
    collector;
    traceId;
    traceparent;
    spans = [];
    dropped = 0;
    lastArrival = -Infinity;
    timer;
    constructor(collector, traceId, traceparent) {
        this.collector = collector;
        this.traceId = traceId;
        this.traceparent = traceparent;
    }
    take(span, now, max) {
        this.lastArrival = now;
        if (this.spans.length >= max) {
            if (this.dropped++ === 0)
                this.collector.cappedTrials++;
            return false;
        }
        this.spans.push(span);
        return true;
    }
    async settle() {
        await this.collector.wait(this, this.collector.clock.now());
        return { spans: this.spans, summary: this.finish() };
    }
    discard() {
        if (this.timer !== undefined)
            this.collector.clock.clearTimeout(this.timer);
        this.finish();
    }
    finish() {
        const errors = this.spans.filter(_spans_js__WEBPACK_IMPORTED_MODULE_1__/* .isErrorSpan */ .jz).sort((a, b) => (a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0));
        const summary = { traceId: this.traceId, spans: this.spans.length, errorCount: errors.length };
        if (this.dropped)
            summary.dropped = this.dropped;
        if (errors.length)
            summary.errorSpans = errors
                .slice(0, MAX_ERROR_SPANS)
                .map((s) => (s.statusMessage === undefined ? { name: s.name } : { name: s.name, message: s.statusMessage.slice(0, 200) }));
        this.collector.close(this, summary);
        return summary;
    }
}


/***/ })

};
