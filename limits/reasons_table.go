// The reason strings are Slurm's (src/common/job_state_reason.c at
// 284c3b95), so that a job sift holds shows what squeue would show; the
// TRES table follows acct_policy.c's _get_tres_state_reason.

package limits

// Reasons a limit holds or refuses a job: Slurm's enum job_state_reason
// values of the association and QOS limits.
const (
	ReasonNone                        Reason = iota // None
	ReasonAssocJobLimit                             // AssociationJobLimit
	ReasonAssocResourceLimit                        // AssociationResourceLimit
	ReasonAssocTimeLimit                            // AssociationTimeLimit
	ReasonFailAccount                               // InvalidAccount
	ReasonFailQOS                                   // InvalidQOS
	ReasonQOSJobLimit                               // QOSJobLimit
	ReasonQOSResourceLimit                          // QOSResourceLimit
	ReasonQOSTimeLimit                              // QOSTimeLimit
	ReasonQOSGrpCPU                                 // QOSGrpCpuLimit
	ReasonQOSGrpCPUMin                              // QOSGrpCPUMinutesLimit
	ReasonQOSGrpCPURunMin                           // QOSGrpCPURunMinutesLimit
	ReasonQOSGrpJob                                 // QOSGrpJobsLimit
	ReasonQOSGrpMem                                 // QOSGrpMemLimit
	ReasonQOSGrpNode                                // QOSGrpNodeLimit
	ReasonQOSGrpSubJob                              // QOSGrpSubmitJobsLimit
	ReasonQOSGrpWall                                // QOSGrpWallLimit
	ReasonQOSMaxCPUPerJob                           // QOSMaxCpuPerJobLimit
	ReasonQOSMaxCPUMinsPerJob                       // QOSMaxCpuMinutesPerJobLimit
	ReasonQOSMaxNodePerJob                          // QOSMaxNodePerJobLimit
	ReasonQOSMaxWallPerJob                          // QOSMaxWallDurationPerJobLimit
	ReasonQOSMaxCPUPerUser                          // QOSMaxCpuPerUserLimit
	ReasonQOSMaxJobPerUser                          // QOSMaxJobsPerUserLimit
	ReasonQOSMaxNodePerUser                         // QOSMaxNodePerUserLimit
	ReasonQOSMaxSubJob                              // QOSMaxSubmitJobPerUserLimit
	ReasonQOSMinCPU                                 // QOSMinCpuNotSatisfied
	ReasonAssocGrpCPU                               // AssocGrpCpuLimit
	ReasonAssocGrpCPUMin                            // AssocGrpCPUMinutesLimit
	ReasonAssocGrpCPURunMin                         // AssocGrpCPURunMinutesLimit
	ReasonAssocGrpJob                               // AssocGrpJobsLimit
	ReasonAssocGrpMem                               // AssocGrpMemLimit
	ReasonAssocGrpNode                              // AssocGrpNodeLimit
	ReasonAssocGrpSubJob                            // AssocGrpSubmitJobsLimit
	ReasonAssocGrpWall                              // AssocGrpWallLimit
	ReasonAssocMaxJobs                              // AssocMaxJobsLimit
	ReasonAssocMaxCPUPerJob                         // AssocMaxCpuPerJobLimit
	ReasonAssocMaxCPUMinsPerJob                     // AssocMaxCpuMinutesPerJobLimit
	ReasonAssocMaxNodePerJob                        // AssocMaxNodePerJobLimit
	ReasonAssocMaxWallPerJob                        // AssocMaxWallDurationPerJobLimit
	ReasonAssocMaxSubJob                            // AssocMaxSubmitJobLimit
	ReasonAssocGrpUnk                               // AssocGrpUnknown
	ReasonAssocGrpUnkMin                            // AssocGrpUnknownMinutes
	ReasonAssocGrpUnkRunMin                         // AssocGrpUnknownRunMinutes
	ReasonAssocMaxUnkPerJob                         // AssocMaxUnknownPerJob
	ReasonAssocMaxUnkPerNode                        // AssocMaxUnknownPerNode
	ReasonAssocMaxUnkMinsPerJob                     // AssocMaxUnknownMinutesPerJob
	ReasonAssocMaxCPUPerNode                        // AssocMaxCpuPerNode
	ReasonAssocGrpMemMin                            // AssocGrpMemMinutes
	ReasonAssocGrpMemRunMin                         // AssocGrpMemRunMinutes
	ReasonAssocMaxMemPerJob                         // AssocMaxMemPerJob
	ReasonAssocMaxMemPerNode                        // AssocMaxMemPerNode
	ReasonAssocMaxMemMinsPerJob                     // AssocMaxMemMinutesPerJob
	ReasonAssocGrpNodeMin                           // AssocGrpNodeMinutes
	ReasonAssocGrpNodeRunMin                        // AssocGrpNodeRunMinutes
	ReasonAssocMaxNodeMinsPerJob                    // AssocMaxNodeMinutesPerJob
	ReasonAssocGrpEnergy                            // AssocGrpEnergy
	ReasonAssocGrpEnergyMin                         // AssocGrpEnergyMinutes
	ReasonAssocGrpEnergyRunMin                      // AssocGrpEnergyRunMinutes
	ReasonAssocMaxEnergyPerJob                      // AssocMaxEnergyPerJob
	ReasonAssocMaxEnergyPerNode                     // AssocMaxEnergyPerNode
	ReasonAssocMaxEnergyMinsPerJob                  // AssocMaxEnergyMinutesPerJob
	ReasonAssocGrpGRES                              // AssocGrpGRES
	ReasonAssocGrpGRESMin                           // AssocGrpGRESMinutes
	ReasonAssocGrpGRESRunMin                        // AssocGrpGRESRunMinutes
	ReasonAssocMaxGRESPerJob                        // AssocMaxGRESPerJob
	ReasonAssocMaxGRESPerNode                       // AssocMaxGRESPerNode
	ReasonAssocMaxGRESMinsPerJob                    // AssocMaxGRESMinutesPerJob
	ReasonAssocGrpLic                               // AssocGrpLicense
	ReasonAssocGrpLicMin                            // AssocGrpLicenseMinutes
	ReasonAssocGrpLicRunMin                         // AssocGrpLicenseRunMinutes
	ReasonAssocMaxLicPerJob                         // AssocMaxLicensePerJob
	ReasonAssocMaxLicMinsPerJob                     // AssocMaxLicenseMinutesPerJob
	ReasonAssocGrpBB                                // AssocGrpBB
	ReasonAssocGrpBBMin                             // AssocGrpBBMinutes
	ReasonAssocGrpBBRunMin                          // AssocGrpBBRunMinutes
	ReasonAssocMaxBBPerJob                          // AssocMaxBBPerJob
	ReasonAssocMaxBBPerNode                         // AssocMaxBBPerNode
	ReasonAssocMaxBBMinsPerJob                      // AssocMaxBBMinutesPerJob
	ReasonQOSGrpUnk                                 // QOSGrpUnknown
	ReasonQOSGrpUnkMin                              // QOSGrpUnknownMinutes
	ReasonQOSGrpUnkRunMin                           // QOSGrpUnknownRunMinutes
	ReasonQOSMaxUnkPerJob                           // QOSMaxUnknownPerJob
	ReasonQOSMaxUnkPerNode                          // QOSMaxUnknownPerNode
	ReasonQOSMaxUnkPerUser                          // QOSMaxUnknownPerUser
	ReasonQOSMaxUnkMinsPerJob                       // QOSMaxUnknownMinutesPerJob
	ReasonQOSMinUnk                                 // QOSMinUnknown
	ReasonQOSMaxCPUPerNode                          // QOSMaxCpuPerNode
	ReasonQOSGrpMemMin                              // QOSGrpMemoryMinutes
	ReasonQOSGrpMemRunMin                           // QOSGrpMemoryRunMinutes
	ReasonQOSMaxMemPerJob                           // QOSMaxMemoryPerJob
	ReasonQOSMaxMemPerNode                          // QOSMaxMemoryPerNode
	ReasonQOSMaxMemPerUser                          // QOSMaxMemoryPerUser
	ReasonQOSMaxMemMinsPerJob                       // QOSMaxMemoryMinutesPerJob
	ReasonQOSMinMem                                 // QOSMinMemory
	ReasonQOSGrpNodeMin                             // QOSGrpNodeMinutes
	ReasonQOSGrpNodeRunMin                          // QOSGrpNodeRunMinutes
	ReasonQOSMaxNodeMinsPerJob                      // QOSMaxNodeMinutesPerJob
	ReasonQOSMinNode                                // QOSMinNode
	ReasonQOSGrpEnergy                              // QOSGrpEnergy
	ReasonQOSGrpEnergyMin                           // QOSGrpEnergyMinutes
	ReasonQOSGrpEnergyRunMin                        // QOSGrpEnergyRunMinutes
	ReasonQOSMaxEnergyPerJob                        // QOSMaxEnergyPerJob
	ReasonQOSMaxEnergyPerNode                       // QOSMaxEnergyPerNode
	ReasonQOSMaxEnergyPerUser                       // QOSMaxEnergyPerUser
	ReasonQOSMaxEnergyMinsPerJob                    // QOSMaxEnergyMinutesPerJob
	ReasonQOSMinEnergy                              // QOSMinEnergy
	ReasonQOSGrpGRES                                // QOSGrpGRES
	ReasonQOSGrpGRESMin                             // QOSGrpGRESMinutes
	ReasonQOSGrpGRESRunMin                          // QOSGrpGRESRunMinutes
	ReasonQOSMaxGRESPerJob                          // QOSMaxGRESPerJob
	ReasonQOSMaxGRESPerNode                         // QOSMaxGRESPerNode
	ReasonQOSMaxGRESPerUser                         // QOSMaxGRESPerUser
	ReasonQOSMaxGRESMinsPerJob                      // QOSMaxGRESMinutesPerJob
	ReasonQOSMinGRES                                // QOSMinGRES
	ReasonQOSGrpLic                                 // QOSGrpLicense
	ReasonQOSGrpLicMin                              // QOSGrpLicenseMinutes
	ReasonQOSGrpLicRunMin                           // QOSGrpLicenseRunMinutes
	ReasonQOSMaxLicPerJob                           // QOSMaxLicensePerJob
	ReasonQOSMaxLicPerUser                          // QOSMaxLicensePerUser
	ReasonQOSMaxLicMinsPerJob                       // QOSMaxLicenseMinutesPerJob
	ReasonQOSMinLic                                 // QOSMinLicense
	ReasonQOSGrpBB                                  // QOSGrpBB
	ReasonQOSGrpBBMin                               // QOSGrpBBMinutes
	ReasonQOSGrpBBRunMin                            // QOSGrpBBRunMinutes
	ReasonQOSMaxBBPerJob                            // QOSMaxBBPerJob
	ReasonQOSMaxBBPerNode                           // QOSMaxBBPerNode
	ReasonQOSMaxBBPerUser                           // QOSMaxBBPerUser
	ReasonQOSMaxBBMinsPerJob                        // AssocMaxBBMinutesPerJob
	ReasonQOSMinBB                                  // QOSMinBB
	ReasonQOSMaxBBPerAcct                           // MaxBBPerAccount
	ReasonQOSMaxCPUPerAcct                          // MaxCpuPerAccount
	ReasonQOSMaxEnergyPerAcct                       // MaxEnergyPerAccount
	ReasonQOSMaxGRESPerAcct                         // MaxGRESPerAccount
	ReasonQOSMaxNodePerAcct                         // MaxNodePerAccount
	ReasonQOSMaxLicPerAcct                          // MaxLicensePerAccount
	ReasonQOSMaxMemPerAcct                          // MaxMemoryPerAccount
	ReasonQOSMaxUnkPerAcct                          // MaxUnknownPerAccount
	ReasonQOSMaxJobPerAcct                          // MaxJobsPerAccount
	ReasonQOSMaxSubJobPerAcct                       // MaxSubmitJobsPerAccount
	ReasonAssocGrpBilling                           // AssocGrpBilling
	ReasonAssocGrpBillingMin                        // AssocGrpBillingMinutes
	ReasonAssocGrpBillingRunMin                     // AssocGrpBillingRunMinutes
	ReasonAssocMaxBillingPerJob                     // AssocMaxBillingPerJob
	ReasonAssocMaxBillingPerNode                    // AssocMaxBillingPerNode
	ReasonAssocMaxBillingMinsPerJob                 // AssocMaxBillingMinutesPerJob
	ReasonQOSGrpBilling                             // QOSGrpBilling
	ReasonQOSGrpBillingMin                          // QOSGrpBillingMinutes
	ReasonQOSGrpBillingRunMin                       // QOSGrpBillingRunMinutes
	ReasonQOSMaxBillingPerJob                       // QOSMaxBillingPerJob
	ReasonQOSMaxBillingPerNode                      // QOSMaxBillingPerNode
	ReasonQOSMaxBillingPerUser                      // QOSMaxBillingPerUser
	ReasonQOSMaxBillingMinsPerJob                   // QOSMaxBillingMinutesPerJob
	ReasonQOSMaxBillingPerAcct                      // MaxBillingPerAccount
	ReasonQOSMinBilling                             // QOSMinBilling
	ReasonQOSMaxBBRunMinsPerAcct                    // MaxBBRunMinsPerAccount
	ReasonQOSMaxBillingRunMinsPerAcct               // MaxBillingRunMinsPerAccount
	ReasonQOSMaxCPURunMinsPerAcct                   // MaxCpuRunMinsPerAccount
	ReasonQOSMaxEnergyRunMinsPerAcct                // MaxEnergyRunMinsPerAccount
	ReasonQOSMaxGRESRunMinsPerAcct                  // MaxGRESRunMinsPerAccount
	ReasonQOSMaxNodeRunMinsPerAcct                  // MaxNodeRunMinsPerAccount
	ReasonQOSMaxLicRunMinsPerAcct                   // MaxLicenseRunMinsPerAccount
	ReasonQOSMaxMemRunMinsPerAcct                   // MaxMemoryRunMinsPerAccount
	ReasonQOSMaxUnkRunMinsPerAcct                   // MaxUnknownRunMinsPerAccount
	ReasonQOSMaxBBRunMinsPerUser                    // MaxBBRunMinsPerUser
	ReasonQOSMaxBillingRunMinsPerUser               // MaxBillingRunMinsPerUser
	ReasonQOSMaxCPURunMinsPerUser                   // MaxCpuRunMinsPerUser
	ReasonQOSMaxEnergyRunMinsPerUser                // MaxEnergyRunMinsPerUser
	ReasonQOSMaxGRESRunMinsPerUser                  // MaxGRESRunMinsPerUser
	ReasonQOSMaxNodeRunMinsPerUser                  // MaxNodeRunMinsPerUser
	ReasonQOSMaxLicRunMinsPerUser                   // MaxLicenseRunMinsPerUser
	ReasonQOSMaxMemRunMinsPerUser                   // MaxMemoryRunMinsPerUser
	ReasonQOSMaxUnkRunMinsPerUser                   // MaxUnknownRunMinsPerUser
	reasonCount
)

var reasonNames = [reasonCount]string{
	ReasonNone:                        "None",
	ReasonAssocJobLimit:               "AssociationJobLimit",
	ReasonAssocResourceLimit:          "AssociationResourceLimit",
	ReasonAssocTimeLimit:              "AssociationTimeLimit",
	ReasonFailAccount:                 "InvalidAccount",
	ReasonFailQOS:                     "InvalidQOS",
	ReasonQOSJobLimit:                 "QOSJobLimit",
	ReasonQOSResourceLimit:            "QOSResourceLimit",
	ReasonQOSTimeLimit:                "QOSTimeLimit",
	ReasonQOSGrpCPU:                   "QOSGrpCpuLimit",
	ReasonQOSGrpCPUMin:                "QOSGrpCPUMinutesLimit",
	ReasonQOSGrpCPURunMin:             "QOSGrpCPURunMinutesLimit",
	ReasonQOSGrpJob:                   "QOSGrpJobsLimit",
	ReasonQOSGrpMem:                   "QOSGrpMemLimit",
	ReasonQOSGrpNode:                  "QOSGrpNodeLimit",
	ReasonQOSGrpSubJob:                "QOSGrpSubmitJobsLimit",
	ReasonQOSGrpWall:                  "QOSGrpWallLimit",
	ReasonQOSMaxCPUPerJob:             "QOSMaxCpuPerJobLimit",
	ReasonQOSMaxCPUMinsPerJob:         "QOSMaxCpuMinutesPerJobLimit",
	ReasonQOSMaxNodePerJob:            "QOSMaxNodePerJobLimit",
	ReasonQOSMaxWallPerJob:            "QOSMaxWallDurationPerJobLimit",
	ReasonQOSMaxCPUPerUser:            "QOSMaxCpuPerUserLimit",
	ReasonQOSMaxJobPerUser:            "QOSMaxJobsPerUserLimit",
	ReasonQOSMaxNodePerUser:           "QOSMaxNodePerUserLimit",
	ReasonQOSMaxSubJob:                "QOSMaxSubmitJobPerUserLimit",
	ReasonQOSMinCPU:                   "QOSMinCpuNotSatisfied",
	ReasonAssocGrpCPU:                 "AssocGrpCpuLimit",
	ReasonAssocGrpCPUMin:              "AssocGrpCPUMinutesLimit",
	ReasonAssocGrpCPURunMin:           "AssocGrpCPURunMinutesLimit",
	ReasonAssocGrpJob:                 "AssocGrpJobsLimit",
	ReasonAssocGrpMem:                 "AssocGrpMemLimit",
	ReasonAssocGrpNode:                "AssocGrpNodeLimit",
	ReasonAssocGrpSubJob:              "AssocGrpSubmitJobsLimit",
	ReasonAssocGrpWall:                "AssocGrpWallLimit",
	ReasonAssocMaxJobs:                "AssocMaxJobsLimit",
	ReasonAssocMaxCPUPerJob:           "AssocMaxCpuPerJobLimit",
	ReasonAssocMaxCPUMinsPerJob:       "AssocMaxCpuMinutesPerJobLimit",
	ReasonAssocMaxNodePerJob:          "AssocMaxNodePerJobLimit",
	ReasonAssocMaxWallPerJob:          "AssocMaxWallDurationPerJobLimit",
	ReasonAssocMaxSubJob:              "AssocMaxSubmitJobLimit",
	ReasonAssocGrpUnk:                 "AssocGrpUnknown",
	ReasonAssocGrpUnkMin:              "AssocGrpUnknownMinutes",
	ReasonAssocGrpUnkRunMin:           "AssocGrpUnknownRunMinutes",
	ReasonAssocMaxUnkPerJob:           "AssocMaxUnknownPerJob",
	ReasonAssocMaxUnkPerNode:          "AssocMaxUnknownPerNode",
	ReasonAssocMaxUnkMinsPerJob:       "AssocMaxUnknownMinutesPerJob",
	ReasonAssocMaxCPUPerNode:          "AssocMaxCpuPerNode",
	ReasonAssocGrpMemMin:              "AssocGrpMemMinutes",
	ReasonAssocGrpMemRunMin:           "AssocGrpMemRunMinutes",
	ReasonAssocMaxMemPerJob:           "AssocMaxMemPerJob",
	ReasonAssocMaxMemPerNode:          "AssocMaxMemPerNode",
	ReasonAssocMaxMemMinsPerJob:       "AssocMaxMemMinutesPerJob",
	ReasonAssocGrpNodeMin:             "AssocGrpNodeMinutes",
	ReasonAssocGrpNodeRunMin:          "AssocGrpNodeRunMinutes",
	ReasonAssocMaxNodeMinsPerJob:      "AssocMaxNodeMinutesPerJob",
	ReasonAssocGrpEnergy:              "AssocGrpEnergy",
	ReasonAssocGrpEnergyMin:           "AssocGrpEnergyMinutes",
	ReasonAssocGrpEnergyRunMin:        "AssocGrpEnergyRunMinutes",
	ReasonAssocMaxEnergyPerJob:        "AssocMaxEnergyPerJob",
	ReasonAssocMaxEnergyPerNode:       "AssocMaxEnergyPerNode",
	ReasonAssocMaxEnergyMinsPerJob:    "AssocMaxEnergyMinutesPerJob",
	ReasonAssocGrpGRES:                "AssocGrpGRES",
	ReasonAssocGrpGRESMin:             "AssocGrpGRESMinutes",
	ReasonAssocGrpGRESRunMin:          "AssocGrpGRESRunMinutes",
	ReasonAssocMaxGRESPerJob:          "AssocMaxGRESPerJob",
	ReasonAssocMaxGRESPerNode:         "AssocMaxGRESPerNode",
	ReasonAssocMaxGRESMinsPerJob:      "AssocMaxGRESMinutesPerJob",
	ReasonAssocGrpLic:                 "AssocGrpLicense",
	ReasonAssocGrpLicMin:              "AssocGrpLicenseMinutes",
	ReasonAssocGrpLicRunMin:           "AssocGrpLicenseRunMinutes",
	ReasonAssocMaxLicPerJob:           "AssocMaxLicensePerJob",
	ReasonAssocMaxLicMinsPerJob:       "AssocMaxLicenseMinutesPerJob",
	ReasonAssocGrpBB:                  "AssocGrpBB",
	ReasonAssocGrpBBMin:               "AssocGrpBBMinutes",
	ReasonAssocGrpBBRunMin:            "AssocGrpBBRunMinutes",
	ReasonAssocMaxBBPerJob:            "AssocMaxBBPerJob",
	ReasonAssocMaxBBPerNode:           "AssocMaxBBPerNode",
	ReasonAssocMaxBBMinsPerJob:        "AssocMaxBBMinutesPerJob",
	ReasonQOSGrpUnk:                   "QOSGrpUnknown",
	ReasonQOSGrpUnkMin:                "QOSGrpUnknownMinutes",
	ReasonQOSGrpUnkRunMin:             "QOSGrpUnknownRunMinutes",
	ReasonQOSMaxUnkPerJob:             "QOSMaxUnknownPerJob",
	ReasonQOSMaxUnkPerNode:            "QOSMaxUnknownPerNode",
	ReasonQOSMaxUnkPerUser:            "QOSMaxUnknownPerUser",
	ReasonQOSMaxUnkMinsPerJob:         "QOSMaxUnknownMinutesPerJob",
	ReasonQOSMinUnk:                   "QOSMinUnknown",
	ReasonQOSMaxCPUPerNode:            "QOSMaxCpuPerNode",
	ReasonQOSGrpMemMin:                "QOSGrpMemoryMinutes",
	ReasonQOSGrpMemRunMin:             "QOSGrpMemoryRunMinutes",
	ReasonQOSMaxMemPerJob:             "QOSMaxMemoryPerJob",
	ReasonQOSMaxMemPerNode:            "QOSMaxMemoryPerNode",
	ReasonQOSMaxMemPerUser:            "QOSMaxMemoryPerUser",
	ReasonQOSMaxMemMinsPerJob:         "QOSMaxMemoryMinutesPerJob",
	ReasonQOSMinMem:                   "QOSMinMemory",
	ReasonQOSGrpNodeMin:               "QOSGrpNodeMinutes",
	ReasonQOSGrpNodeRunMin:            "QOSGrpNodeRunMinutes",
	ReasonQOSMaxNodeMinsPerJob:        "QOSMaxNodeMinutesPerJob",
	ReasonQOSMinNode:                  "QOSMinNode",
	ReasonQOSGrpEnergy:                "QOSGrpEnergy",
	ReasonQOSGrpEnergyMin:             "QOSGrpEnergyMinutes",
	ReasonQOSGrpEnergyRunMin:          "QOSGrpEnergyRunMinutes",
	ReasonQOSMaxEnergyPerJob:          "QOSMaxEnergyPerJob",
	ReasonQOSMaxEnergyPerNode:         "QOSMaxEnergyPerNode",
	ReasonQOSMaxEnergyPerUser:         "QOSMaxEnergyPerUser",
	ReasonQOSMaxEnergyMinsPerJob:      "QOSMaxEnergyMinutesPerJob",
	ReasonQOSMinEnergy:                "QOSMinEnergy",
	ReasonQOSGrpGRES:                  "QOSGrpGRES",
	ReasonQOSGrpGRESMin:               "QOSGrpGRESMinutes",
	ReasonQOSGrpGRESRunMin:            "QOSGrpGRESRunMinutes",
	ReasonQOSMaxGRESPerJob:            "QOSMaxGRESPerJob",
	ReasonQOSMaxGRESPerNode:           "QOSMaxGRESPerNode",
	ReasonQOSMaxGRESPerUser:           "QOSMaxGRESPerUser",
	ReasonQOSMaxGRESMinsPerJob:        "QOSMaxGRESMinutesPerJob",
	ReasonQOSMinGRES:                  "QOSMinGRES",
	ReasonQOSGrpLic:                   "QOSGrpLicense",
	ReasonQOSGrpLicMin:                "QOSGrpLicenseMinutes",
	ReasonQOSGrpLicRunMin:             "QOSGrpLicenseRunMinutes",
	ReasonQOSMaxLicPerJob:             "QOSMaxLicensePerJob",
	ReasonQOSMaxLicPerUser:            "QOSMaxLicensePerUser",
	ReasonQOSMaxLicMinsPerJob:         "QOSMaxLicenseMinutesPerJob",
	ReasonQOSMinLic:                   "QOSMinLicense",
	ReasonQOSGrpBB:                    "QOSGrpBB",
	ReasonQOSGrpBBMin:                 "QOSGrpBBMinutes",
	ReasonQOSGrpBBRunMin:              "QOSGrpBBRunMinutes",
	ReasonQOSMaxBBPerJob:              "QOSMaxBBPerJob",
	ReasonQOSMaxBBPerNode:             "QOSMaxBBPerNode",
	ReasonQOSMaxBBPerUser:             "QOSMaxBBPerUser",
	ReasonQOSMaxBBMinsPerJob:          "AssocMaxBBMinutesPerJob",
	ReasonQOSMinBB:                    "QOSMinBB",
	ReasonQOSMaxBBPerAcct:             "MaxBBPerAccount",
	ReasonQOSMaxCPUPerAcct:            "MaxCpuPerAccount",
	ReasonQOSMaxEnergyPerAcct:         "MaxEnergyPerAccount",
	ReasonQOSMaxGRESPerAcct:           "MaxGRESPerAccount",
	ReasonQOSMaxNodePerAcct:           "MaxNodePerAccount",
	ReasonQOSMaxLicPerAcct:            "MaxLicensePerAccount",
	ReasonQOSMaxMemPerAcct:            "MaxMemoryPerAccount",
	ReasonQOSMaxUnkPerAcct:            "MaxUnknownPerAccount",
	ReasonQOSMaxJobPerAcct:            "MaxJobsPerAccount",
	ReasonQOSMaxSubJobPerAcct:         "MaxSubmitJobsPerAccount",
	ReasonAssocGrpBilling:             "AssocGrpBilling",
	ReasonAssocGrpBillingMin:          "AssocGrpBillingMinutes",
	ReasonAssocGrpBillingRunMin:       "AssocGrpBillingRunMinutes",
	ReasonAssocMaxBillingPerJob:       "AssocMaxBillingPerJob",
	ReasonAssocMaxBillingPerNode:      "AssocMaxBillingPerNode",
	ReasonAssocMaxBillingMinsPerJob:   "AssocMaxBillingMinutesPerJob",
	ReasonQOSGrpBilling:               "QOSGrpBilling",
	ReasonQOSGrpBillingMin:            "QOSGrpBillingMinutes",
	ReasonQOSGrpBillingRunMin:         "QOSGrpBillingRunMinutes",
	ReasonQOSMaxBillingPerJob:         "QOSMaxBillingPerJob",
	ReasonQOSMaxBillingPerNode:        "QOSMaxBillingPerNode",
	ReasonQOSMaxBillingPerUser:        "QOSMaxBillingPerUser",
	ReasonQOSMaxBillingMinsPerJob:     "QOSMaxBillingMinutesPerJob",
	ReasonQOSMaxBillingPerAcct:        "MaxBillingPerAccount",
	ReasonQOSMinBilling:               "QOSMinBilling",
	ReasonQOSMaxBBRunMinsPerAcct:      "MaxBBRunMinsPerAccount",
	ReasonQOSMaxBillingRunMinsPerAcct: "MaxBillingRunMinsPerAccount",
	ReasonQOSMaxCPURunMinsPerAcct:     "MaxCpuRunMinsPerAccount",
	ReasonQOSMaxEnergyRunMinsPerAcct:  "MaxEnergyRunMinsPerAccount",
	ReasonQOSMaxGRESRunMinsPerAcct:    "MaxGRESRunMinsPerAccount",
	ReasonQOSMaxNodeRunMinsPerAcct:    "MaxNodeRunMinsPerAccount",
	ReasonQOSMaxLicRunMinsPerAcct:     "MaxLicenseRunMinsPerAccount",
	ReasonQOSMaxMemRunMinsPerAcct:     "MaxMemoryRunMinsPerAccount",
	ReasonQOSMaxUnkRunMinsPerAcct:     "MaxUnknownRunMinsPerAccount",
	ReasonQOSMaxBBRunMinsPerUser:      "MaxBBRunMinsPerUser",
	ReasonQOSMaxBillingRunMinsPerUser: "MaxBillingRunMinsPerUser",
	ReasonQOSMaxCPURunMinsPerUser:     "MaxCpuRunMinsPerUser",
	ReasonQOSMaxEnergyRunMinsPerUser:  "MaxEnergyRunMinsPerUser",
	ReasonQOSMaxGRESRunMinsPerUser:    "MaxGRESRunMinsPerUser",
	ReasonQOSMaxNodeRunMinsPerUser:    "MaxNodeRunMinsPerUser",
	ReasonQOSMaxLicRunMinsPerUser:     "MaxLicenseRunMinsPerUser",
	ReasonQOSMaxMemRunMinsPerUser:     "MaxMemoryRunMinsPerUser",
	ReasonQOSMaxUnkRunMinsPerUser:     "MaxUnknownRunMinsPerUser",
}

// tresReasons[class][kind] is the reason of a TRES limit of a kind for a
// TRES class, as _get_tres_state_reason picks it (the kind's "Unknown"
// reason where Slurm has no specific one).
var tresReasons = [tresClassCount][limitKindCount]Reason{
	{
		kindAssocGrp:             ReasonAssocGrpCPU,
		kindQOSGrp:               ReasonQOSGrpCPU,
		kindAssocGrpMin:          ReasonAssocGrpCPUMin,
		kindQOSGrpMin:            ReasonQOSGrpCPUMin,
		kindAssocGrpRunMin:       ReasonAssocGrpCPURunMin,
		kindQOSGrpRunMin:         ReasonQOSGrpCPURunMin,
		kindAssocMaxPerJob:       ReasonAssocMaxCPUPerJob,
		kindQOSMaxPerJob:         ReasonQOSMaxCPUPerJob,
		kindAssocMaxMinsPerJob:   ReasonAssocMaxCPUMinsPerJob,
		kindQOSMaxMinsPerJob:     ReasonQOSMaxCPUMinsPerJob,
		kindAssocMaxPerNode:      ReasonAssocMaxCPUPerNode,
		kindQOSMaxPerNode:        ReasonQOSMaxCPUPerNode,
		kindQOSMaxPerAcct:        ReasonQOSMaxCPUPerAcct,
		kindQOSMaxPerUser:        ReasonQOSMaxCPUPerUser,
		kindQOSMaxRunMinsPerAcct: ReasonQOSMaxCPURunMinsPerAcct,
		kindQOSMaxRunMinsPerUser: ReasonQOSMaxCPURunMinsPerUser,
		kindQOSMin:               ReasonQOSMinCPU,
	},
	{
		kindAssocGrp:             ReasonAssocGrpMem,
		kindQOSGrp:               ReasonQOSGrpMem,
		kindAssocGrpMin:          ReasonAssocGrpMemMin,
		kindQOSGrpMin:            ReasonQOSGrpMemMin,
		kindAssocGrpRunMin:       ReasonAssocGrpMemRunMin,
		kindQOSGrpRunMin:         ReasonQOSGrpMemRunMin,
		kindAssocMaxPerJob:       ReasonAssocMaxMemPerJob,
		kindQOSMaxPerJob:         ReasonQOSMaxMemPerJob,
		kindAssocMaxMinsPerJob:   ReasonAssocMaxMemMinsPerJob,
		kindQOSMaxMinsPerJob:     ReasonQOSMaxMemMinsPerJob,
		kindAssocMaxPerNode:      ReasonAssocMaxMemPerNode,
		kindQOSMaxPerNode:        ReasonQOSMaxMemPerNode,
		kindQOSMaxPerAcct:        ReasonQOSMaxMemPerAcct,
		kindQOSMaxPerUser:        ReasonQOSMaxMemPerUser,
		kindQOSMaxRunMinsPerAcct: ReasonQOSMaxMemRunMinsPerAcct,
		kindQOSMaxRunMinsPerUser: ReasonQOSMaxMemRunMinsPerUser,
		kindQOSMin:               ReasonQOSMinMem,
	},
	{
		kindAssocGrp:             ReasonAssocGrpEnergy,
		kindQOSGrp:               ReasonQOSGrpEnergy,
		kindAssocGrpMin:          ReasonAssocGrpEnergyMin,
		kindQOSGrpMin:            ReasonQOSGrpEnergyMin,
		kindAssocGrpRunMin:       ReasonAssocGrpEnergyRunMin,
		kindQOSGrpRunMin:         ReasonQOSGrpEnergyRunMin,
		kindAssocMaxPerJob:       ReasonAssocMaxEnergyPerJob,
		kindQOSMaxPerJob:         ReasonQOSMaxEnergyPerJob,
		kindAssocMaxMinsPerJob:   ReasonAssocMaxEnergyMinsPerJob,
		kindQOSMaxMinsPerJob:     ReasonQOSMaxEnergyMinsPerJob,
		kindAssocMaxPerNode:      ReasonAssocMaxEnergyPerNode,
		kindQOSMaxPerNode:        ReasonQOSMaxEnergyPerNode,
		kindQOSMaxPerAcct:        ReasonQOSMaxEnergyPerAcct,
		kindQOSMaxPerUser:        ReasonQOSMaxEnergyPerUser,
		kindQOSMaxRunMinsPerAcct: ReasonQOSMaxEnergyRunMinsPerAcct,
		kindQOSMaxRunMinsPerUser: ReasonQOSMaxEnergyRunMinsPerUser,
		kindQOSMin:               ReasonQOSMinEnergy,
	},
	{
		kindAssocGrp:             ReasonAssocGrpNode,
		kindQOSGrp:               ReasonQOSGrpNode,
		kindAssocGrpMin:          ReasonAssocGrpNodeMin,
		kindQOSGrpMin:            ReasonQOSGrpNodeMin,
		kindAssocGrpRunMin:       ReasonAssocGrpNodeRunMin,
		kindQOSGrpRunMin:         ReasonQOSGrpNodeRunMin,
		kindAssocMaxPerJob:       ReasonAssocMaxNodePerJob,
		kindQOSMaxPerJob:         ReasonQOSMaxNodePerJob,
		kindAssocMaxMinsPerJob:   ReasonAssocMaxNodeMinsPerJob,
		kindQOSMaxMinsPerJob:     ReasonQOSMaxNodeMinsPerJob,
		kindAssocMaxPerNode:      ReasonAssocMaxUnkPerNode,
		kindQOSMaxPerNode:        ReasonQOSMaxUnkPerNode,
		kindQOSMaxPerAcct:        ReasonQOSMaxNodePerAcct,
		kindQOSMaxPerUser:        ReasonQOSMaxNodePerUser,
		kindQOSMaxRunMinsPerAcct: ReasonQOSMaxNodeRunMinsPerAcct,
		kindQOSMaxRunMinsPerUser: ReasonQOSMaxNodeRunMinsPerUser,
		kindQOSMin:               ReasonQOSMinNode,
	},
	{
		kindAssocGrp:             ReasonAssocGrpBilling,
		kindQOSGrp:               ReasonQOSGrpBilling,
		kindAssocGrpMin:          ReasonAssocGrpBillingMin,
		kindQOSGrpMin:            ReasonQOSGrpBillingMin,
		kindAssocGrpRunMin:       ReasonAssocGrpBillingRunMin,
		kindQOSGrpRunMin:         ReasonQOSGrpBillingRunMin,
		kindAssocMaxPerJob:       ReasonAssocMaxBillingPerJob,
		kindQOSMaxPerJob:         ReasonQOSMaxBillingPerJob,
		kindAssocMaxMinsPerJob:   ReasonAssocMaxBillingMinsPerJob,
		kindQOSMaxMinsPerJob:     ReasonQOSMaxBillingMinsPerJob,
		kindAssocMaxPerNode:      ReasonAssocMaxBillingPerNode,
		kindQOSMaxPerNode:        ReasonQOSMaxBillingPerNode,
		kindQOSMaxPerAcct:        ReasonQOSMaxBillingPerAcct,
		kindQOSMaxPerUser:        ReasonQOSMaxBillingPerUser,
		kindQOSMaxRunMinsPerAcct: ReasonQOSMaxBillingRunMinsPerAcct,
		kindQOSMaxRunMinsPerUser: ReasonQOSMaxBillingRunMinsPerUser,
		kindQOSMin:               ReasonQOSMinBilling,
	},
	{
		kindAssocGrp:             ReasonAssocGrpGRES,
		kindQOSGrp:               ReasonQOSGrpGRES,
		kindAssocGrpMin:          ReasonAssocGrpGRESMin,
		kindQOSGrpMin:            ReasonQOSGrpGRESMin,
		kindAssocGrpRunMin:       ReasonAssocGrpGRESRunMin,
		kindQOSGrpRunMin:         ReasonQOSGrpGRESRunMin,
		kindAssocMaxPerJob:       ReasonAssocMaxGRESPerJob,
		kindQOSMaxPerJob:         ReasonQOSMaxGRESPerJob,
		kindAssocMaxMinsPerJob:   ReasonAssocMaxGRESMinsPerJob,
		kindQOSMaxMinsPerJob:     ReasonQOSMaxGRESMinsPerJob,
		kindAssocMaxPerNode:      ReasonAssocMaxGRESPerNode,
		kindQOSMaxPerNode:        ReasonQOSMaxGRESPerNode,
		kindQOSMaxPerAcct:        ReasonQOSMaxGRESPerAcct,
		kindQOSMaxPerUser:        ReasonQOSMaxGRESPerUser,
		kindQOSMaxRunMinsPerAcct: ReasonQOSMaxGRESRunMinsPerAcct,
		kindQOSMaxRunMinsPerUser: ReasonQOSMaxGRESRunMinsPerUser,
		kindQOSMin:               ReasonQOSMinGRES,
	},
	{
		kindAssocGrp:             ReasonAssocGrpLic,
		kindQOSGrp:               ReasonQOSGrpLic,
		kindAssocGrpMin:          ReasonAssocGrpLicMin,
		kindQOSGrpMin:            ReasonQOSGrpLicMin,
		kindAssocGrpRunMin:       ReasonAssocGrpLicRunMin,
		kindQOSGrpRunMin:         ReasonQOSGrpLicRunMin,
		kindAssocMaxPerJob:       ReasonAssocMaxLicPerJob,
		kindQOSMaxPerJob:         ReasonQOSMaxLicPerJob,
		kindAssocMaxMinsPerJob:   ReasonAssocMaxLicMinsPerJob,
		kindQOSMaxMinsPerJob:     ReasonQOSMaxLicMinsPerJob,
		kindAssocMaxPerNode:      ReasonAssocMaxUnkPerNode,
		kindQOSMaxPerNode:        ReasonQOSMaxUnkPerNode,
		kindQOSMaxPerAcct:        ReasonQOSMaxLicPerAcct,
		kindQOSMaxPerUser:        ReasonQOSMaxLicPerUser,
		kindQOSMaxRunMinsPerAcct: ReasonQOSMaxLicRunMinsPerAcct,
		kindQOSMaxRunMinsPerUser: ReasonQOSMaxLicRunMinsPerUser,
		kindQOSMin:               ReasonQOSMinLic,
	},
	{
		kindAssocGrp:             ReasonAssocGrpBB,
		kindQOSGrp:               ReasonQOSGrpBB,
		kindAssocGrpMin:          ReasonAssocGrpBBMin,
		kindQOSGrpMin:            ReasonQOSGrpBBMin,
		kindAssocGrpRunMin:       ReasonAssocGrpBBRunMin,
		kindQOSGrpRunMin:         ReasonQOSGrpBBRunMin,
		kindAssocMaxPerJob:       ReasonAssocMaxBBPerJob,
		kindQOSMaxPerJob:         ReasonQOSMaxBBPerJob,
		kindAssocMaxMinsPerJob:   ReasonAssocMaxBBMinsPerJob,
		kindQOSMaxMinsPerJob:     ReasonQOSMaxBBMinsPerJob,
		kindAssocMaxPerNode:      ReasonAssocMaxBBPerNode,
		kindQOSMaxPerNode:        ReasonQOSMaxBBPerNode,
		kindQOSMaxPerAcct:        ReasonQOSMaxBBPerAcct,
		kindQOSMaxPerUser:        ReasonQOSMaxBBPerUser,
		kindQOSMaxRunMinsPerAcct: ReasonQOSMaxBBRunMinsPerAcct,
		kindQOSMaxRunMinsPerUser: ReasonQOSMaxBBRunMinsPerUser,
		kindQOSMin:               ReasonQOSMinBB,
	},
	{
		kindAssocGrp:             ReasonAssocGrpUnk,
		kindQOSGrp:               ReasonQOSGrpUnk,
		kindAssocGrpMin:          ReasonAssocGrpUnkMin,
		kindQOSGrpMin:            ReasonQOSGrpUnkMin,
		kindAssocGrpRunMin:       ReasonAssocGrpUnkRunMin,
		kindQOSGrpRunMin:         ReasonQOSGrpUnkRunMin,
		kindAssocMaxPerJob:       ReasonAssocMaxUnkPerJob,
		kindQOSMaxPerJob:         ReasonQOSMaxUnkPerJob,
		kindAssocMaxMinsPerJob:   ReasonAssocMaxUnkMinsPerJob,
		kindQOSMaxMinsPerJob:     ReasonQOSMaxUnkMinsPerJob,
		kindAssocMaxPerNode:      ReasonAssocMaxUnkPerNode,
		kindQOSMaxPerNode:        ReasonQOSMaxUnkPerNode,
		kindQOSMaxPerAcct:        ReasonQOSMaxUnkPerAcct,
		kindQOSMaxPerUser:        ReasonQOSMaxUnkPerUser,
		kindQOSMaxRunMinsPerAcct: ReasonQOSMaxUnkRunMinsPerAcct,
		kindQOSMaxRunMinsPerUser: ReasonQOSMaxUnkRunMinsPerUser,
		kindQOSMin:               ReasonQOSMinUnk,
	},
}
