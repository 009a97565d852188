/* proto_schema.c — the message types of proto.h, by their declarations.
 *
 * Every type, its body and its reply are declared once in the src/proto schema files;
 * gen.py turns them into the tables of proto_gen.c, and schema.c checks and
 * decodes any of them. This file only finds a type's declaration. */
#include "common/proto.h"

#include <errno.h>
#include <string.h>

#include "common/proto_gen.h"

bool drv_msg_known(const char *type)
{
	return drv_msg_decl_find(type) != NULL || (type && strcmp(type, "reply") == 0);
}

const char *drv_msg_type_name(size_t i)
{
	return i < drv_n_msg_decls ? drv_msg_decls[i].type : NULL;
}

int drv_msg_validate(const char *type, json_t *body, struct drv_error *err)
{
	const struct drv_msg_decl *d = drv_msg_decl_find(type);
	if (!d) {
		if (type && strcmp(type, "reply") == 0)
			return json_is_object(body)
				   ? 0
				   : drv_error_set(
					 err, EBADMSG,
					 "reply: field 'body': must be an object");
		return drv_error_set(err, EBADMSG, "undeclared message type '%s'",
				     type ? type : "(null)");
	}
	return drv_shape_validate(d->body, body, err);
}

int drv_reply_validate(const char *type, json_t *body, struct drv_error *err)
{
	const struct drv_msg_decl *d = drv_msg_decl_find(type);
	if (!d)
		return drv_error_set(err, EBADMSG, "undeclared message type '%s'",
				     type ? type : "(null)");
	if (!d->reply)
		return json_is_object(body)
			   ? 0
			   : drv_error_set(err, EBADMSG,
					   "%s reply: field 'body': must be "
					   "an object",
					   d->type);
	return drv_shape_validate(d->reply, body, err);
}

int drv_msg_fill_defaults(const char *type, json_t *body)
{
	const struct drv_msg_decl *d = drv_msg_decl_find(type);
	if (!d || !json_is_object(body))
		return -EINVAL;
	drv_shape_fill_defaults(d->body, body);
	return 0;
}

json_t *drv_msg_example(const char *type)
{
	const struct drv_msg_decl *d = drv_msg_decl_find(type);
	return d ? drv_shape_example(d->body, false) : NULL;
}
