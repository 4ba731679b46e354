from agentdex.cli import main

main()
