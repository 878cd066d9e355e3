"""Case managers: clients, caseloads, the approval queue, transcripts, summaries and the dashboard."""
