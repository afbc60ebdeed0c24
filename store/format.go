package store

// Items carry a formatVersion so that a reader can tell the shapes apart
// (seed 004): 1, or none, for items written before expenses had versions,
// revisions and activity events; 2 since. The readers accept both shapes, and
// `migrate` brings the old ones up to date.
const (
	attrFormatVersion = "formatVersion"
	formatCurrent     = 2
)
