// Package jobtest holds the checks that the select plugins' tests share:
// it drives a plugin and compares its fast paths with its reference
// answers.
package jobtest
