from agentdex.cli import main

if __name__ == "__main__":  # a crawling process (crawl --processes) imports it too
    main()
