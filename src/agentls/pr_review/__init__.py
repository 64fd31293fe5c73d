"""Pull-request reviews for CI (``ci/review-pr.sh``): the review agent's prompt from the
diff and the repository's review instructions, and its machine-readable findings turned
into one GitHub review whose line comments sit only on lines of the diff."""
