// A command judge that never answers.
process.stdin.resume()
setInterval(() => {}, 1000)
