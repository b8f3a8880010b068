// A command judge that crashes.
process.stderr.write('judge crashed: model not found\n')
process.exit(3)
