#!/usr/bin/env Rscript
# The irace side of bench/search.sh: irace (López-Ibáñez et al. 2016; Debian's r-cran-irace) on the fixture
# spaces the Rust benchmark exported (each a JSON of axes, every setting's true time and a budget of runs),
# with the same 1% noise on every run. An instance is a noise draw, so irace's races see the same noisy
# objective `sweep` does; its budget is `maxExperiments` = the same runs. The pick is irace's best elite.
# Prints markdown rows as bench/search_peers.py does. Usage: search_irace.R EXPORT_DIR [FRACTION...]
suppressPackageStartupMessages({
  library(irace)
  library(jsonlite)
})

args <- commandArgs(trailingOnly = TRUE)
folder <- args[1]
fractions <- args[-1]

study <- function(fixture, seed) {
  levels <- fixture$levels
  ordered <- fixture$ordered
  truth <- fixture$truth
  strides <- rev(cumprod(c(1, rev(levels)[-length(levels)])))
  names <- paste0("x", seq_along(levels) - 1)
  lines <- mapply(function(name, count, is_ordered) {
    if (is_ordered) sprintf('%s "" i (0, %d)', name, count - 1)
    else sprintf('%s "" c (%s)', name, paste(seq_len(count) - 1, collapse = ", "))
  }, names, levels, ordered)
  parameters <- readParameters(text = paste(lines, collapse = "\n"))
  setting <- function(configuration) {
    sum(sapply(seq_along(names), function(i) as.integer(as.character(configuration[[names[i]]])) * strides[i])) + 1
  }
  runner <- function(experiment, scenario) {
    # The noise of this run, drawn from the session's generator, which irace seeds with `seed`.
    list(cost = truth[setting(experiment$configuration)] * (1 + rnorm(1, 0, 0.01)))
  }
  log <- tempfile(fileext = ".Rdata")
  scenario <- list(targetRunner = runner, instances = seq_len(1000), maxExperiments = fixture$budget,
                   seed = seed, quiet = TRUE, logFile = log, deterministic = FALSE)
  elites <- irace(scenario = scenario, parameters = parameters)
  used <- read_logfile(log)$state$experimentsUsedSoFar
  unlink(log)
  picked <- truth[setting(elites[1, ])]
  c(regret = picked / min(truth) - 1, used = used / fixture$budget)
}

rows <- list()
for (path in sort(Sys.glob(file.path(folder, "*.json")))) {
  parts <- strsplit(sub("\\.json$", "", basename(path)), "-")[[1]]
  if (length(fractions) > 0 && !(parts[2] %in% fractions)) next
  fixture <- fromJSON(path)
  started <- Sys.time()
  result <- study(fixture, as.integer(parts[3]))
  seconds <- as.numeric(Sys.time() - started, units = "secs")
  key <- paste(parts[1], length(fixture$truth), parts[2], sep = "|")
  rows[[key]] <- rbind(rows[[key]], c(result, seconds = seconds))
}
for (key in sort(names(rows))) {
  parts <- strsplit(key, "|", fixed = TRUE)[[1]]
  results <- rows[[key]]
  regrets <- sort(results[, "regret"])
  # The upper median, as the Rust side takes it.
  cat(sprintf("| %s | %s | %.0f%% | irace %s (Friedman races, one run an experiment) | %.2f%% | %d/%d | %.2f | %.0f | |\n",
              parts[1], parts[2], as.numeric(parts[3]) * 100, packageVersion("irace"),
              regrets[length(regrets) %/% 2 + 1] * 100, sum(regrets == 0), length(regrets),
              median(results[, "used"]), median(results[, "seconds"]) * 1e3))
}
