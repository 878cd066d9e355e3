"""The curated Texas legal corpus: cited entries, embeddings, hybrid retrieval and the confidence gate."""
