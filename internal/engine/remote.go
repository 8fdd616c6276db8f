package engine

// IsRemote reports whether the embedding provider named providerName (a
// CTX_EMBED_PROVIDER value) sends texts off the machine: ollama, openai and
// voyage do (an Ollama server may run on this machine, but ctx cannot
// tell, so it is treated as remote); builtin, model2vec, onnx and none
// ("" too) embed in this process. An unknown name is remote, the safe
// answer. Text sent to a remote provider is masked first wherever ctx
// embeds user-authored text (memories).
func IsRemote(providerName string) bool {
	switch providerName {
	case "", "none", "builtin", "model2vec", "onnx":
		return false
	}
	return true
}
