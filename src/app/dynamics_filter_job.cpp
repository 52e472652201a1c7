// The dynamics filter job (include/kinetrack/app/dynamics_filter_job.hpp): being moved here from apps/cli.
