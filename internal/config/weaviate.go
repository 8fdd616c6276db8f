package config

import "os"

// WeaviateServer locates a Weaviate server: the one scripts/weaviate.sh
// starts for the integration tests, or any other.
type WeaviateServer struct {
	// URL is the server's base URL, such as "http://127.0.0.1:8080"
	// (CTX_WEAVIATE_URL). Empty means no server is configured.
	URL string
	// APIKey is sent as a bearer token (CTX_WEAVIATE_API_KEY). Empty means
	// anonymous access, which is how scripts/weaviate.sh runs the server.
	APIKey string
}

// Weaviate reads CTX_WEAVIATE_URL and CTX_WEAVIATE_API_KEY. It never
// fails: an unset variable leaves its field empty.
func Weaviate() WeaviateServer {
	return WeaviateServer{
		URL:    os.Getenv("CTX_WEAVIATE_URL"),
		APIKey: os.Getenv("CTX_WEAVIATE_API_KEY"),
	}
}
