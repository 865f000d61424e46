package verify

import "hash"

// TODO(verify helper): replaced by blake2sp.go, xxhash.go.
func newBLAKE2sp() hash.Hash { return nil }
func newXXH32() hash.Hash    { return nil }
func newXXH64() hash.Hash    { return nil }
