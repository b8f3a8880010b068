// A command judge that answers with something that is not a verdict.
process.stdin.resume()
process.stdin.on('end', () => process.stdout.write('I think it is pretty good overall!\n'))
