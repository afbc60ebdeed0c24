package graph

// FastPathCounts is how many list fields the fast path has written, and
// how many it left to the generic path, since the process started.
func FastPathCounts() (written, fellBack int64) { return fastWritten.Load(), fastFellBack.Load() }
