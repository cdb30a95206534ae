// Package yamlconf owns sift's YAML form of an accounting-limits
// configuration, an alternative to a `sacctmgr dump` file: the cluster,
// its QOS, root's limits and the account tree with its users, each limit
// spelled as sacctmgr spells it (GrpTRES: cpu=512, MaxJobs: 20). It reads
// the file into a limits.Policy; errors carry the file, line, column and
// byte offset of the offending node, and unknown fields are warnings.
package yamlconf
