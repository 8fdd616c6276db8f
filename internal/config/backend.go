package config

// Backend names where an index is kept and searched.
type Backend struct {
	// Name is "local" (the SQLite index in the cache directory, default)
	// or "weaviate" (CTX_BACKEND, or --backend): the local index is still
	// built, then synced into Weaviate, and searches read Weaviate.
	Name string
	// Weaviate is the server (CTX_WEAVIATE_URL, CTX_WEAVIATE_API_KEY).
	Weaviate WeaviateServer
	// Tenant is the repository's tenant (CTX_WEAVIATE_TENANT); empty
	// derives it from the repository's origin URL or root.
	Tenant string
	// Replicas is the replication factor of collections ctx creates
	// (CTX_WEAVIATE_REPLICAS, default 1; 2 or 3 on a cluster).
	Replicas int
	// Prefix starts ctx's collection names (CTX_WEAVIATE_PREFIX, default
	// "Ctx"): two teams, or two test runs, can share a server.
	Prefix string
}

// Backends lists the valid Backend.Name values.
var Backends = []string{"local", "weaviate"}
