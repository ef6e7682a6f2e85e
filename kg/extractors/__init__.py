"""extractors"""
