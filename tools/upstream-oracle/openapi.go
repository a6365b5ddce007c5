package main

import (
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
)

func withOpenAPI(c *fake.Clientset) kubernetes.Interface { return c }
