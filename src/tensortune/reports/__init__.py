"""Reports: tables and plots built from stored records and tuning summaries."""
