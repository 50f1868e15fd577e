// Filled in by the evaluator tests.
