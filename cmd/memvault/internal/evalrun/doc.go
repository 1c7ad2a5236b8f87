// Package evalrun measures recall quality on a labelled corpus (the
// format of shared/eval/dev-v1.json): it loads the corpus's memories into
// a temporary vault through the normal write path, asks every query and
// scores the ranks (Recall@1, Recall@k, MRR@10, strong recall, abstain).
// `memvault eval` wires it.
package evalrun
