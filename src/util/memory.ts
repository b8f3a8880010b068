/**
 * A full garbage collection between phases. After a large run the heap still
 * holds the dataset and the run's temporaries: V8 lets it grow to several
 * times what was live at its last collection before it looks again, and would
 * carry all of it into what follows: writing the record and the report, and in
 * the action the artifact upload, whose buffers come on top. One collection
 * there took the peak at 100,000 cases from ~410 MB to ~345 MB for the action,
 * and from ~340 MB to ~325 MB for `evalgate run` (npm run bench -- --only
 * scale,action).
 *
 * Best effort: where the runtime does not allow it, V8 collects when it will.
 */
import v8 from 'node:v8'
import { runInNewContext } from 'node:vm'

export function collectGarbage(): void {
  try {
    // exposes gc() to contexts made from now on, such as the one below; the agent's is not one of them
    v8.setFlagsFromString('--expose-gc')
    ;(runInNewContext('gc') as () => void)()
  } catch {
    // not offered here: nothing lost but memory
  }
}
