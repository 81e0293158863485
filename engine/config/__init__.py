"""Configuration: the schema and the layered loader (SPEC 17)."""

from engine.config.loader import ConfigIssue, LoadedConfig, load_config
from engine.config.paths import project_config_path, user_config_path
from engine.config.schema import Config

__all__ = ["Config", "ConfigIssue", "LoadedConfig", "load_config", "project_config_path", "user_config_path"]
