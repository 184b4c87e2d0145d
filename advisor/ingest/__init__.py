"""Records to tokens: traffic files, prompt templates, chat rendering, the sandbox, tokenizers."""
