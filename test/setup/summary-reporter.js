/**
 * Prints one plain closing line, "jest: N passed, N failed, N skipped", so that any CI reading
 * closing lines (not only Jest's own format) sees how many tests ran.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
    process.stdout.write(`jest: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped\n`);
  }
}
module.exports = SummaryReporter;
