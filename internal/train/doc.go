// Package train trains ctx's static code-embedding model, the weights the
// builtin embedding provider ships. It sits beside the pipeline, not in
// it: input is the (query, code) pairs internal/mine writes as JSON lines,
// output is a model directory that [static.LoadModel2Vec] reads.
//
// The model is an embedding bag over [static.CodeTokenizer] ids: the
// maxVocab most frequent training terms (count ≥ 2) followed by hashed
// trigram buckets. A text t with token multiset {rᵢ} embeds as
//
//	e = Σᵢ w(rᵢ) · E[rᵢ]        w(r) = a/(a + p(r)), SIF weights, a = 1e-3
//	vₖ = e[:k] / ‖e[:k]‖₂       for each Matryoshka level k ∈ {d, d/2, d/4}
//
// where p(r) is the token's frequency over the training texts; w is fixed
// (stored as the model's weights) and only E is learned, so the exported
// model embeds exactly as [static.Model.Embed] does (v_d there).
//
// The loss of a batch of B pairs is, summed over the levels, symmetric
// InfoNCE with in-batch negatives: with Sᵢⱼ = vₖ(qᵢ)·vₖ(cⱼ)/τ,
//
//	Lₖ = (1/2B) Σᵢ [ lse_j Sᵢⱼ − Sᵢᵢ ] + (1/2B) Σⱼ [ lse_i Sᵢⱼ − Sⱼⱼ ]
//
// Its gradient is derived by hand (see step.go) and checked against
// finite differences in the tests. Rows are updated by sparse Adagrad:
// only the rows a batch touched change, each element by
// −lr · g / (√G + ε) with G the running sum of g².
//
// Determinism: given the seed, the pairs and the options, training is
// bit-reproducible, and the result does not depend on --workers either:
// every text is encoded by one goroutine, every similarity row and column
// by one goroutine, and each row's gradient is summed over the batch's
// texts in batch order by the one goroutine that owns that row (row mod
// workers). What is not reproducible is where a --time-budget run stops,
// since that depends on the machine's speed.
//
// Evaluation retrieves each held-out query's code among all distinct
// held-out codes and reports MRR@10 for the model, for an in-memory BM25
// over the same codes ([analyze.Terms], k1 1.2, b 0.75; for evaluation
// only, not ctx's search), and for their reciprocal rank fusion (k 60).
package train
