package functions

// hashDefs defines the hash group: md5, sha, sha1, sha2, crc32, hash (Murmur3) and xxhash64.
func hashDefs() []*Def {
	return nil
}
