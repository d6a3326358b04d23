// `npm run bench`: timing goals are checked here, never in timed tests.
process.stdout.write('no benchmarks yet\n');
