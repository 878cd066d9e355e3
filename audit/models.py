from audit.log import AuditEvent

__all__ = ["AuditEvent"]
