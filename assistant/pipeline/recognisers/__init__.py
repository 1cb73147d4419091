"""What the rule tier recognises that is no tool's, with no model call: small talk and a line in kind
(``small_talk``), questions about what the assistant can do (``abilities``), and actions out of its reach, asked
for or claimed in an answer (``reach``). The shared reading of a request is ``tools/reading/``; each tool's own rule
lives with the tool."""
