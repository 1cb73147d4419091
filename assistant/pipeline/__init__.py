"""The pipeline's stages, together: ``turn`` reads top to bottom like the diagram (router → executor → tool →
validator → responder), and each stage is a module of its own. Nothing is imported here, so that a front end
can import ``events`` without the model stack."""
