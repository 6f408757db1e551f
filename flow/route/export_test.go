package route

// SetECMPRowLimit sets the bound of the distance rows r and its clones
// keep, in place of ECMPRowBytes.
func SetECMPRowLimit(r *ECMP, bytes int64) { r.rows.limit = bytes }

// ECMPRows returns the number of distance rows r and its clones keep and
// the bytes they count.
func ECMPRows(r *ECMP) (rows int, bytes int64) {
	r.rows.mu.Lock()
	defer r.rows.mu.Unlock()
	return len(r.rows.rows), r.rows.bytes
}
