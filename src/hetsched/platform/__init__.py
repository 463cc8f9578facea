"""Platforms: node types, nodes, clusters, and their file loaders."""

from hetsched.platform.model import Node, NodeType, Platform

__all__ = ["Node", "NodeType", "Platform"]
