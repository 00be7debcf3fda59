"""The Cluster Metadata Service: Paxos over log positions, submissions, reconfiguration."""
